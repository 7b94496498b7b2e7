export * from "./pass-k.ts";
export * from "./interval.ts";
export * from "./paired.ts";
export * from "./shapley.ts";
export * from "./leave-one-out.ts";
export * from "./pareto.ts";
export * from "./horizon.ts";
