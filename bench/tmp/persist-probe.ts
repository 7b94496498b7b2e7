import { createDatabase, ensureProject, migrate, persistTraceScores, persistTraceScoreSets } from "@crux/db";
import { decodeExportRequest, normalizeSpans, addContent } from "@crux/otlp";
import { scoreTrace, defaultPriceTable } from "../../packages/core/src/index.ts";
import { withBenchDatabase } from "../bench-database.ts";
import { buildPayloads } from "../workload.ts";

const { payloads } = buildPayloads(40, 512);
const spans = payloads.flatMap((p) => normalizeSpans(decodeExportRequest(p, "protobuf").spans).map(addContent));
const byTrace = new Map<string, typeof spans>();
for (const s of spans) byTrace.set(s.traceId, [...(byTrace.get(s.traceId) ?? []), s]);
const records = [...byTrace].map(([traceId, ss]) =>
  scoreTrace({
    projectId: "p",
    traceId,
    version: 1,
    spans: ss,
    config: {
      prices: defaultPriceTable,
      agentContracts: [],
      handoffContracts: [],
      milestoneSet: null,
      configuredBaseline: null,
      coordinationWeights: null,
      repetitionK: null,
    },
    outcomeOverride: null,
    baselineRun: null,
    validateSchema: () => ({ valid: true, errors: [] }) as never,
    evaluateMilestone: () => false,
  }),
);
await withBenchDatabase(async (url) => {
  const database = await createDatabase({ url });
  await migrate(database);
  await ensureProject(database, "p", "p");
  const times: number[][] = [];
  const orig = database.db.transaction.bind(database.db);
  (database.db as any).transaction = (fn: any) =>
    orig(async (tx: any) => {
      const e = tx.execute.bind(tx);
      const mine: number[] = [];
      times.push(mine);
      tx.execute = async (q: any) => {
        const t = performance.now();
        const r = await e(q);
        mine.push(performance.now() - t);
        return r;
      };
      return fn(tx);
    });
  for (const conc of [1, 4]) {
    const slice = conc === 1 ? records.slice(0, 150) : records.slice(150, 400);
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: conc }, async () => {
        while (next < slice.length) await persistTraceScores(database, "p", slice[next++]!);
      }),
    );
    const ms = performance.now() - t0;
    const per = times.splice(0).reduce((acc, t) => t.map((x, i) => (acc[i] ?? 0) + x / slice.length), [] as number[]);
    console.log("per statement ms:", per.map((x) => x.toFixed(2)).join(" "));
    console.log(`concurrency ${conc}: ${(ms / slice.length).toFixed(2)} ms per persist (${slice.length}), ${(slice.length / (ms / 1000)).toFixed(0)} per s`);
  }
  for (const size of [4, 16]) {
    const slice = records.slice(size === 4 ? 0 : 200, size === 4 ? 200 : 400).map((r) => ({ record: { ...r, version: 2 } }));
    const t0 = performance.now();
    for (let i = 0; i < slice.length; i += size) await persistTraceScoreSets(database, "p", slice.slice(i, i + size));
    const ms = performance.now() - t0;
    times.splice(0);
    console.log(`batches of ${size} (re-scores): ${(ms / slice.length).toFixed(2)} ms per set`);
  }
  await database.close();
});
