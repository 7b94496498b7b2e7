/**
 * The runs list reads each page off its index: a page costs its own rows, not a sort of every
 * trace of the project. Read from the query's plan after ANALYZE, on both backends.
 */
import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../src/client.ts";
import { ensureProject, insertSpanBatch, type Database, type ListTracesQuery } from "../src/index.ts";
import { listTracesSelect } from "../src/traces/reads.ts";
import { BASE_NS, projectId, span, spanId, traceId } from "./fixtures.ts";

const TRACES = 3_000;

interface PlanNode {
  "Node Type": string;
  "Index Name"?: string;
  "Sort Key"?: string[];
  Plans?: PlanNode[];
}
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

describe.each(testDatabases())("the runs list's plan on $name", ({ create }) => {
  let database: Database;
  const project = projectId();

  beforeAll(async () => {
    database = await create();
    await ensureProject(database, project, "plan test");
    const batch = Array.from({ length: TRACES }, (_, i) =>
      span({
        traceId: traceId(i + 1),
        spanId: spanId(1),
        serviceName: i % 2 === 0 ? "svc-a" : "svc-b",
        isError: i % 5 === 0,
        startTimeUnixNano: BASE_NS + BigInt(i) * 1_000_000n,
        endTimeUnixNano: BASE_NS + BigInt(i) * 1_000_000n + 500n,
      }),
    );
    for (let i = 0; i < batch.length; i += 500) await insertSpanBatch(database, project, batch.slice(i, i + 500));
    await queryRows(database, { text: "ANALYZE", values: [] });
  }, 120_000);
  afterAll(async () => {
    await database.close();
  });

  const plan = async (q: ListTracesQuery): Promise<PlanNode[]> => {
    const select = listTracesSelect(database, project, q, q.limit)!;
    const { sql, params } = select.toSQL();
    const [[json]] = (await queryRows(database, { text: `EXPLAIN (FORMAT JSON) ${sql}`, values: params })) as [[unknown]];
    const parsed = (typeof json === "string" ? JSON.parse(json) : json) as [{ Plan: PlanNode }];
    return nodes(parsed[0].Plan);
  };

  it.each<[string, ListTracesQuery, RegExp]>([
    ["every trace", { limit: 100 }, /^traces_project_(service_)?start_idx$/],
    ["one service", { limit: 100, service: "svc-a" }, /^traces_project_(service_)?start_idx$/],
    ["traces with an error", { limit: 100, hasError: true }, /^traces_project_(error_)?start_idx$/],
  ])("%s: newest first along the index, no sort of the matching traces", async (_, q, index) => {
    const all = await plan(q);
    // Sorts inside the per-row subqueries (a run's finding modes, its rank-1 attribution) are per row and small.
    const byStart = all.filter((n) => n["Node Type"] === "Sort" && (n["Sort Key"] ?? []).some((k) => k.includes("start_ns")));
    expect(byStart, JSON.stringify(all.map((n) => n["Node Type"]))).toEqual([]);
    expect(all.some((n) => index.test(n["Index Name"] ?? ""))).toBe(true);
  });
});
