/**
 * pnpm bench:api — latency of the metrics endpoints over 100,000 scored traces.
 * Seeds trace_scores, trace_agent_usage (3 agents a trace) and trace_findings
 * (0-3 a trace) spread over 7 days with generate_series, then calls each
 * endpoint through app.inject over the last 24 h and the full 7 d, printing
 * p50/p95 next to a baseline measured in the same run: a bare count(*) of the
 * window's trace_scores rows (the floor any aggregation pays). The seed bypasses
 * persistTraceScores, so the hourly rollups are rebuilt from it once. Judges
 * are seeded as a sample: a MAST-checklist verdict on every failed trace and on
 * one in ten of the others (the default sampling share), with 0-2 findings each, and an
 * outcome-rubric grade on the same share, so failure-modes and success read the
 * judge rows too (source=all, the default). BENCH_PENDING (default 250) of the
 * newest traces are then listed as not yet folded into the rollups, as a live
 * service's last second of scored traces are, so every read also computes their
 * cells from their rows (they are then counted twice: the figures are latencies,
 * not answers). Uses
 * DATABASE_URL (default local Postgres); creates and drops its own database.
 */
import pg from "pg";
import { withBenchDatabase } from "./bench-database.ts";
import { createDatabase, migrate, rebuildScoreRollups } from "@crux/db";
// The API service is not a root dependency; import its entry directly.
import { buildApiApp } from "../services/api/src/index.ts";
import { createAuthenticator } from "@crux/auth";

const TRACES = Number(process.env.BENCH_TRACES ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const PENDING = Number(process.env.BENCH_PENDING ?? 250); // BENCH_KEEP_DB=1 keeps the database for EXPLAIN
const PROJECT = "bench";
const DAY_MS = 86_400_000;
const NOW_MS = Date.UTC(2026, 0, 15, 12);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

async function seed(client: pg.Client): Promise<void> {
  const fromNs = `${BigInt(NOW_MS - 7 * DAY_MS) * 1_000_000n}`;
  const stepNs = `${(BigInt(7 * DAY_MS) * 1_000_000n) / BigInt(TRACES)}`;
  await client.query(`INSERT INTO projects (id, name) VALUES ('${PROJECT}', '${PROJECT}')`);
  await client.query(`
    INSERT INTO trace_scores (project_id, trace_id, version, service_name, start_ns, end_ns, success, task_id, is_baseline,
      input_tokens, output_tokens, cached_tokens, total_tokens, cost_usd, unpriced_models,
      token_multiplier, token_observed, token_baseline, token_baseline_source, cost_multiplier, cost_observed, cost_baseline, cost_baseline_source,
      milestone_set_id, milestone_partial_credit, milestone_full_success, milestone_furthest_index, milestone_detail, signals, flags, finding_count)
    SELECT '${PROJECT}', lpad(to_hex(i), 32, '0'), 1, 'svc-' || (i % 5), ${fromNs}::bigint + i * ${stepNs}::bigint, ${fromNs}::bigint + i * ${stepNs}::bigint + 5000000000,
      (i % 3 <> 0), 'task-' || (i % 500), (i % 20 = 0),
      1000 + i % 700, 300 + i % 200, i % 100, 1300 + i % 700 + i % 200, 0.001 * (i % 50), '{}',
      CASE WHEN i % 20 = 0 THEN NULL ELSE 2.5 END, 1300, 520, CASE WHEN i % 20 = 0 THEN 'unknown' ELSE 'baseline_run' END,
      CASE WHEN i % 20 = 0 THEN NULL ELSE 3.0 END, 0.03, 0.01, CASE WHEN i % 20 = 0 THEN 'unknown' ELSE 'configured' END,
      'set', (i % 5) / 4.0, i % 5 = 4, i % 5,
      jsonb_build_array(jsonb_build_object('id','m1','passed', i % 5 >= 1), jsonb_build_object('id','m2','passed', i % 5 >= 2), jsonb_build_object('id','m3','passed', i % 5 >= 3)),
      '[]', '{"orphans":0,"multipleRoots":false,"clockSkew":0}', i % 4
    FROM generate_series(1, ${TRACES}) AS i`);
  await client.query(`
    INSERT INTO trace_agent_usage (project_id, trace_id, agent, spans, llm_calls, tool_calls, errors, input_tokens, output_tokens, cached_tokens,
      cost_usd, token_share, wall_ms, start_ns, service_name)
    SELECT s.project_id, s.trace_id, 'agent-' || ((a + length(s.trace_id) + (s.start_ns / 1000000000 % 7)::int) % 12), 3, 2, 1, (a % 2), 300 + a, 100, 10,
      CASE WHEN a = 2 AND s.start_ns % 10 = 0 THEN NULL ELSE 0.002 END, 1 / 3.0, 100, s.start_ns, s.service_name
    FROM trace_scores s, generate_series(0, 2) AS a WHERE s.project_id = '${PROJECT}'
    ON CONFLICT DO NOTHING`);
  await client.query(`
    INSERT INTO trace_findings (project_id, trace_id, ord, mode, category, agent, span_id, step_index, source, confidence, evidence,
      start_ns, service_name, success, first_of_mode, first_of_category, first_of_agent_mode)
    SELECT s.project_id, s.trace_id, k, m.mode, m.cat, 'agent-' || (k % 12), lpad(to_hex(k), 16, '0'), k, CASE WHEN k = 2 THEN 'contract' ELSE 'heuristic' END,
      0.9, 'rule', s.start_ns, s.service_name, s.success, true, true, true
    FROM trace_scores s, generate_series(0, 2) AS k,
      LATERAL (SELECT (ARRAY['FM-1.3','FM-1.5','FM-3.2','FM-2.5','FM-1.2'])[1 + (k + s.finding_count) % 5] AS mode) mm,
      LATERAL (SELECT mm.mode, 'FC' || substr(mm.mode, 4, 1) AS cat) m
    WHERE s.project_id = '${PROJECT}' AND k < s.finding_count`);
  const judged = `s.project_id = '${PROJECT}' AND (NOT s.success OR ('x' || right(s.trace_id, 6))::bit(24)::int % 10 = 0)`;
  await client.query(`
    INSERT INTO judge_current_verdicts (project_id, trace_id, producer_id, producer_version, input_hash, status, start_ns, service_name, verdict_created_at)
    SELECT s.project_id, s.trace_id, 'judge.mast-checklist', 1, 'h', 'succeeded', s.start_ns, s.service_name, now() FROM trace_scores s WHERE ${judged}`);
  await client.query(`
    INSERT INTO judge_current_verdicts (project_id, trace_id, producer_id, producer_version, input_hash, status, start_ns, service_name, outcome_success, verdict_created_at)
    SELECT s.project_id, s.trace_id, 'judge.outcome-rubric', 1, 'h', 'succeeded', s.start_ns, s.service_name, s.finding_count < 2, now() FROM trace_scores s WHERE ${judged}`);
  await client.query(`
    INSERT INTO judge_findings (project_id, trace_id, producer_id, ord, mode, category, agent, span_id, step_index, confidence, evidence, explanation, start_ns, service_name)
    SELECT s.project_id, s.trace_id, 'judge.mast-checklist', k, m.mode, 'FC' || substr(m.mode, 4, 1), 'agent-' || (k % 12), lpad(to_hex(k), 16, '0'), k, 0.7, 'quote', 'why',
      s.start_ns, s.service_name
    FROM trace_scores s, generate_series(0, 1) AS k,
      LATERAL (SELECT (ARRAY['FM-2.2','FM-1.3','FM-2.4','FM-3.3'])[1 + (k + s.finding_count) % 4] AS mode) m
    WHERE ${judged} AND k < s.finding_count % 3`);
}

async function main(): Promise<void> {
  await withBenchDatabase(run, { keep: process.env.BENCH_KEEP_DB === "1" });
}

async function run(url: string): Promise<void> {
  const database = await createDatabase({ url, poolSize: 8 });
  const client = new pg.Client({ connectionString: url });
  try {
    await migrate(database);
    await client.connect();
    const t0 = performance.now();
    await seed(client);
    await rebuildScoreRollups(database, PROJECT);
    await client.query(
      "INSERT INTO score_rollup_pending (project_id, trace_id) SELECT project_id, trace_id FROM trace_scores WHERE project_id = $1 ORDER BY start_ns DESC LIMIT $2",
      [PROJECT, PENDING],
    );
    await client.query("ANALYZE");
    const counts = await client.query(
      "SELECT (SELECT count(*) FROM trace_scores) AS traces, (SELECT count(*) FROM trace_agent_usage) AS agents, (SELECT count(*) FROM trace_findings) AS findings, (SELECT count(*) FROM judge_findings) AS judge_findings",
    );
    console.log(`seeded ${JSON.stringify(counts.rows[0])} in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${PENDING} newest traces pending a fold`);

    const app = await buildApiApp({ database, authenticate: createAuthenticator({ database, required: false, defaultProjectId: PROJECT }), now: () => NOW_MS });
    const windows = { "24h": "", "7d": `from=${new Date(NOW_MS - 7 * DAY_MS).toISOString()}&to=${new Date(NOW_MS).toISOString()}` };
    const endpoints = [
      "failure-modes",
      "failure-modes?source=code",
      "failure-modes?groupBy=agent",
      "failure-modes?groupBy=category",
      "agents",
      "agents?bucket=1h",
      "cost-multiplier",
      "success",
    ];
    console.log(
      `\n${"endpoint".padEnd(34)} ${"window".padEnd(6)} ${"p50 ms".padStart(8)} ${"p95 ms".padStart(8)} ${"base p95".padStart(9)} ${"ratio".padStart(6)}`,
    );
    let worst = 0;
    for (const [label, qs] of Object.entries(windows)) {
      const fromNs = BigInt(NOW_MS - (label === "24h" ? DAY_MS : 7 * DAY_MS)) * 1_000_000n;
      const toNs = BigInt(NOW_MS) * 1_000_000n;
      const base: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const s = performance.now();
        await client.query("SELECT count(*) FROM trace_scores WHERE project_id = $1 AND start_ns >= $2 AND start_ns < $3", [
          PROJECT,
          fromNs.toString(),
          toNs.toString(),
        ]);
        base.push(performance.now() - s);
      }
      for (const ep of endpoints) {
        const sep = ep.includes("?") ? "&" : "?";
        const target = `/api/v1/metrics/${ep}${qs ? sep + qs : ""}`;
        const warm = await app.inject({ method: "GET", url: target });
        if (warm.statusCode !== 200) throw new Error(`${target}: ${warm.statusCode} ${warm.body}`);
        const times: number[] = [];
        for (let i = 0; i < RUNS; i++) {
          const s = performance.now();
          await app.inject({ method: "GET", url: target });
          times.push(performance.now() - s);
        }
        const p95 = pct(times, 95);
        worst = Math.max(worst, p95);
        console.log(
          `${ep.padEnd(34)} ${label.padEnd(6)} ${pct(times, 50).toFixed(1).padStart(8)} ${p95.toFixed(1).padStart(8)} ${pct(base, 95).toFixed(1).padStart(9)} ${(p95 / pct(base, 95)).toFixed(1).padStart(6)}`,
        );
      }
    }
    console.log(`\nworst p95: ${worst.toFixed(1)} ms (target < 200 ms) ${worst < 200 ? "OK" : "OVER"}`);
    await app.close();
  } finally {
    await client.end().catch(() => {});
    await database.close();
  }
}

await main();
