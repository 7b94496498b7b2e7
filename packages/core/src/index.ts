export * from "./span.ts";
export * from "./errors.ts";
