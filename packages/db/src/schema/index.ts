/**
 * The drizzle schema, one file per domain; drizzle.config.ts and the client read it from here.
 */
export * from "./keys.ts";
export * from "./traces.ts";
export * from "./scores.ts";
export * from "./config.ts";
export * from "./rollups.ts";
export * from "./judges.ts";
export * from "./alerts.ts";
export * from "./experiments.ts";
