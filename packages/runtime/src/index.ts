export * from "./auth.ts";
export * from "./shutdown.ts";
export * from "./logger.ts";
