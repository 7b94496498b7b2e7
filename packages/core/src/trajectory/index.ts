export * from "./types.ts";
export { buildTrajectories, compareByStart, agentNameFromKey } from "./build.ts";
export { canonicalJson, canonicalArgs, parseMaybeJson } from "./canonical-json.ts";
