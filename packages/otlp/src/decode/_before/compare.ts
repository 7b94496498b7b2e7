import { buildPayloads } from "../../../../../bench/workload.ts";
import * as before from "./protobuf.ts";
import * as beforeCommon from "./common.ts";
import * as after from "../protobuf.ts";
import * as afterCommon from "../common.ts";
import { defaultDecodeLimits } from "../limits.ts";

const { payloads, spans } = buildPayloads(40);
const cases: Record<string, () => number> = {
  before: () => { let n = 0; for (const b of payloads) n += before.decodeProtobufRequest(b, new beforeCommon.DecodeContext(defaultDecodeLimits)).length; return n; },
  after: () => { let n = 0; for (const b of payloads) n += after.decodeProtobufRequest(b, new afterCommon.DecodeContext(defaultDecodeLimits)).length; return n; },
};
// same output?
const a = JSON.stringify(before.decodeProtobufRequest(payloads[3]!, new beforeCommon.DecodeContext(defaultDecodeLimits)), (_k, v) => typeof v === "bigint" ? v.toString() : v);
const b = JSON.stringify(after.decodeProtobufRequest(payloads[3]!, new afterCommon.DecodeContext(defaultDecodeLimits)), (_k, v) => typeof v === "bigint" ? v.toString() : v);
console.log("identical output:", a === b);
const rates: Record<string, number[]> = { before: [], after: [] };
for (let round = 0; round <= Number(process.env.ROUNDS ?? 15); round++) {
  for (const [name, run] of Object.entries(round % 2 ? cases : Object.fromEntries(Object.entries(cases).reverse()))) {
    const c0 = process.cpuUsage(); run(); const c = process.cpuUsage(c0); const s = (c.user + c.system) / 1e6;
    if (round > 0) rates[name]!.push(spans / s);
  }
}
for (const [name, r] of Object.entries(rates)) { r.sort((x, y) => x - y); console.log(name, "best", Math.round(r[r.length - 1]!), "median", Math.round(r[r.length >> 1]!)); }
