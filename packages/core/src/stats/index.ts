export * from "./rng.ts";
export * from "./bootstrap.ts";
export * from "./ratio.ts";
export * from "./success.ts";
export * from "./agreement.ts";
