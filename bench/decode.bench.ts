/**
 * tsx bench/decode.bench.ts — OTLP request decode throughput (spans/s) on the
 * same realistic multi-agent payloads (bench/workload.ts), measured in one run:
 *   1. @crux/otlp protobuf decode (one pass over protobufjs's Reader),
 *   2. @crux/otlp OTLP/JSON decode of the same requests,
 *   3. baseline: protobufjs reflection ExportTraceServiceRequestType.decode
 *      (builds message objects only: no ids as hex, limits or conversion).
 * Each is run in alternating rounds; the best round is reported.
 */
import { decodeExportRequest } from "@crux/otlp";
// Reflection types are internal to @crux/otlp; the bench reads them from source.
import { ExportTraceServiceRequestType } from "../packages/otlp/src/proto.ts";
import { protobufToOtlpJson } from "../packages/otlp/test/fixtures/decode/proto-request.ts";
import { buildPayloads } from "./workload.ts";

const BATCHES = Number(process.env.BENCH_BATCHES ?? 40);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

const { payloads, spans } = buildPayloads(BATCHES);
const jsonPayloads = payloads.map(protobufToOtlpJson);
const mb = (bodies: Uint8Array[]) => (bodies.reduce((n, b) => n + b.length, 0) / 1e6).toFixed(1);
console.log(`${spans} spans in ${payloads.length} requests: protobuf ${mb(payloads)} MB, JSON ${mb(jsonPayloads)} MB`);

const cases: Record<string, () => number> = {
  "protobuf (decodeExportRequest)": () => {
    let n = 0;
    for (const body of payloads) n += decodeExportRequest(body, "protobuf").spans.length;
    return n;
  },
  "json (decodeExportRequest)": () => {
    let n = 0;
    for (const body of jsonPayloads) n += decodeExportRequest(body, "json").spans.length;
    return n;
  },
  "baseline: protobufjs Type.decode": () => {
    let n = 0;
    for (const body of payloads) n += (ExportTraceServiceRequestType.decode(body) as unknown as { resourceSpans: unknown[] }).resourceSpans.length;
    return n;
  },
};

const best: Record<string, number> = {};
for (let round = 0; round <= ROUNDS; round++) {
  for (const [name, run] of Object.entries(cases)) {
    const t0 = process.hrtime.bigint();
    run();
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    if (round > 0) best[name] = Math.max(best[name] ?? 0, spans / seconds); // round 0 warms up
  }
}
for (const [name, rate] of Object.entries(best)) console.log(`${name.padEnd(34)} ${Math.round(rate).toLocaleString("en-US").padStart(12)} spans/s`);
