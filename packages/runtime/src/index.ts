export * from "./shutdown.ts";
export * from "./logger.ts";
export * from "./metrics.ts";
export * from "./health.ts";
