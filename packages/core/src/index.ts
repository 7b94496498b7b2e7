export * from "./span.ts";
export * from "./errors.ts";
export type * from "./attribution/types.ts";
