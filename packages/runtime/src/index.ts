export * from "./shutdown.ts";
export * from "./logger.ts";
