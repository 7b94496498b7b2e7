export * from "./span.ts";
export * from "./errors.ts";
export type * from "./attribution/types.ts";
export { attributeAgents } from "./attribution/index.ts";
export * from "./trajectory/index.ts";
export * from "./scorers/index.ts";
export * from "./stats/index.ts";
export type * from "./pipeline/record.ts";
export type * from "./pipeline/config.ts";
