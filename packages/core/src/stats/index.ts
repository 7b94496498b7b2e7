export * from "./rng.ts";
export * from "./bootstrap.ts";
