export * from "./types.ts";
export { buildTrajectories, compareByStart, compareSpansByStart, agentNameFromKey } from "./build.ts";
export { canonicalJson, canonicalArgs, parseMaybeJson } from "./canonical-json.ts";
