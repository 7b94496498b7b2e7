export * from "./metrics.ts";
export * from "./health.ts";
