export * from "./db.ts";
export * from "./scenarios.ts";
export * from "./payloads.ts";
export * from "./tcp-proxy.ts";
export * from "./backends.ts";
export * from "./mock-llm.ts";
