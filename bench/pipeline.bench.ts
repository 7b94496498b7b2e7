/**
 * pnpm bench:pipeline — does scoring keep up with ingest? Runs the production
 * receiver and the production worker as their own processes on Postgres and
 * Redis (a throwaway database and queue prefix, settle delay 500 ms, root delay
 * 200 ms), sends multi-agent traces at fixed rates, each for a fixed time, and
 * per rate reports: spans/s accepted, traces scored per second, the backlog
 * (traces received and not yet scored) at the end of the phase, its slope over
 * the phase's second half, how long it took to drain, and export-to-scored
 * latency per trace (the answer to the request carrying its last batch → its
 * trace_scores.scored_at). The highest rate whose backlog drains within
 * BENCH_DRAIN_OK_SECONDS is the sustainable end-to-end throughput; it is
 * printed against an ingest-only saturated phase of the same run (worker
 * stopped). A rate whose backlog does not drain within BENCH_DRAIN_SECONDS
 * ends the series (higher rates would start on its backlog).
 * With BENCH_WORKERS=N, N worker processes share the queue. Each worker's
 * "trace scored" log lines are read: the run fails if one trace was scored
 * twice for the same input hash (the stored hash must stop the second job).
 * At the end the workers' crux_worker_score_part_seconds give the cost of a
 * scored trace split into its parts, and crux_worker_jobs_total the
 * deferrals per scored trace. CPU per trace by process (cpu-meter.ts: load
 * generator, receiver, worker, Postgres, Redis) is printed for every phase and
 * for ingest alone, with the ratio of the two rates CPU alone would allow.
 * Knobs: BENCH_RATES (spans/s, comma-separated, default 1000,2000,3000,5000),
 * BENCH_SECONDS (per rate, 15), BENCH_DRAIN_OK_SECONDS (5),
 * BENCH_DRAIN_SECONDS (30), BENCH_SATURATED_BATCHES (150), BENCH_CONCURRENCY (4),
 * BENCH_WORKERS (1), BENCH_WORKER_CONCURRENCY (the worker's default), BENCH_WORKER_FLAGS
 * (node flags of the worker processes, e.g. "--cpu-prof --cpu-prof-dir=prof", after the ones
 * `pnpm start:worker` gives it).
 */
import { createDatabase, ensureProject, migrate } from "@crux/db";
import { decodeExportRequest } from "@crux/otlp";
import { purgeQueuePrefix } from "@crux/queue";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { withBenchDatabase } from "./bench-database.ts";
import { createCpuMeter, type CpuSplit, type Role } from "./cpu-meter.ts";
import { createOtlpClient } from "./otlp-client.ts";
import { buildPayloads } from "./workload.ts";

const RATES = (process.env.BENCH_RATES ?? "1000,2000,3000,5000").split(",").map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const DRAIN_OK_SECONDS = Number(process.env.BENCH_DRAIN_OK_SECONDS ?? 5);
const DRAIN_SECONDS = Number(process.env.BENCH_DRAIN_SECONDS ?? 30);
const SATURATED_BATCHES = Number(process.env.BENCH_SATURATED_BATCHES ?? 150);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 1);
const WORKER_CONCURRENCY = process.env.BENCH_WORKER_CONCURRENCY;
const BATCH_SPANS = 512;
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const root = fileURLToPath(new URL("..", import.meta.url));

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "-");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Least-squares slope of (t seconds, y) samples. */
function slope(samples: { t: number; y: number }[]): number {
  const n = samples.length;
  if (n < 2) return NaN;
  const mt = samples.reduce((a, s) => a + s.t, 0) / n;
  const my = samples.reduce((a, s) => a + s.y, 0) / n;
  const num = samples.reduce((a, s) => a + (s.t - mt) * (s.y - my), 0);
  const den = samples.reduce((a, s) => a + (s.t - mt) ** 2, 0);
  return num / den;
}

/** The node flags `pnpm start:worker` gives the worker (package.json), so the bench runs the production process. */
function productionWorkerFlags(): string[] {
  const scripts = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { scripts: Record<string, string> }).scripts;
  const words = scripts["start:worker"]!.split(" ");
  return words.slice(1, words.indexOf("--import"));
}

/** Starts a service entry point as its own process and waits until its /readyz answers 200. */
async function startService(entry: string, readyUrl: string, env: Record<string, string>, onLine?: (line: string) => void) {
  const flags = entry.includes("worker") ? [...productionWorkerFlags(), ...(process.env.BENCH_WORKER_FLAGS ?? "").split(" ").filter(Boolean)] : [];
  const child = spawn(process.execPath, [...flags, "--import", "tsx", entry], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", onLine ? "pipe" : "inherit", "inherit"],
  });
  if (onLine && child.stdout) {
    let rest = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) if (line) onLine(line);
    });
  }
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`${entry} exited with ${child.exitCode}`);
    if (i >= 600) {
      await stop();
      throw new Error(`${entry} not ready after 60 s`);
    }
    // Not listening yet (refused) or listening but not ready (503): wait either way.
    if (
      await fetch(readyUrl).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await sleep(100);
  }
  return { stop, pid: child.pid! };
}

/** One phase's requests, with the trace ids whose last span each request carries. */
function buildPhase(batches: number) {
  const { payloads, spans } = buildPayloads(batches, BATCH_SPANS);
  const lastBatchOf = new Map<string, number>();
  payloads.forEach((p, i) => {
    for (const s of decodeExportRequest(p, "protobuf").spans) lastBatchOf.set(s.traceId, i);
  });
  return { payloads, spans, lastBatchOf };
}

async function main() {
  const phases = RATES.map((rate) => ({ rate, ...buildPhase(Math.max(1, Math.round((rate * SECONDS) / BATCH_SPANS))) }));
  const saturated = buildPayloads(SATURATED_BATCHES, BATCH_SPANS);
  const warmup = buildPayloads(10, BATCH_SPANS).payloads;
  console.log(
    `rates ${RATES.map(fmt).join(", ")} spans/s for ${SECONDS} s each, 512-span protobuf batches (~50 spans per trace); ` +
      `backlog must drain within ${DRAIN_OK_SECONDS} s after a phase\n`,
  );

  await withBenchDatabase(async (url) => {
    const database = await createDatabase({ url });
    await migrate(database);
    await ensureProject(database, "default", "default");
    await database.close();
    const port = 14318 + Math.floor(Math.random() * 1000);
    const metricsPort = port + 2000;
    const queuePrefix = `bench-${randomUUID()}`;
    const common = { DATABASE_URL: url, REDIS_URL: redisUrl, CRUX_HOST: "127.0.0.1", CRUX_QUEUE_PREFIX: queuePrefix, CRUX_LOG_LEVEL: "warn" };
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const stops: (() => Promise<void>)[] = [];
    const client = createOtlpClient(port);
    try {
      const receiver = await startService("services/receiver/src/main.ts", `http://127.0.0.1:${port}/readyz`, {
        ...common,
        CRUX_AUTH: "false",
        CRUX_OTLP_HTTP_PORT: String(port),
        CRUX_OTLP_GRPC_PORT: String(port + 1000),
        CRUX_SETTLE_DELAY_MS: "500",
        CRUX_SETTLE_ROOT_DELAY_MS: "200",
      });
      stops.push(receiver.stop);
      // Every "trace scored" line: (trace, input hash) must be unique across all workers.
      const scoredInputs = new Map<string, number>();
      const onWorkerLine = (line: string) => {
        let entry: { level?: number; msg?: string; traceId?: string; inputHash?: string | null };
        try {
          entry = JSON.parse(line) as typeof entry;
        } catch {
          return void console.log(line);
        }
        if (entry.msg === "trace scored") {
          if (entry.inputHash) scoredInputs.set(`${entry.traceId}:${entry.inputHash}`, (scoredInputs.get(`${entry.traceId}:${entry.inputHash}`) ?? 0) + 1);
        } else if ((entry.level ?? 0) >= 40) console.log(line);
      };
      const workers: { stop: () => Promise<void>; metricsUrl: string; pid: number }[] = [];
      for (let w = 0; w < WORKERS; w++) {
        const port = metricsPort + w;
        const worker = await startService(
          "services/worker/src/main.ts",
          `http://127.0.0.1:${port}/readyz`,
          {
            ...common,
            CRUX_LOG_LEVEL: "info",
            CRUX_WORKER_METRICS_PORT: String(port),
            ...(WORKER_CONCURRENCY ? { CRUX_WORKER_CONCURRENCY: WORKER_CONCURRENCY } : {}),
          },
          onWorkerLine,
        );
        workers.push({ ...worker, metricsUrl: `http://127.0.0.1:${port}/metrics` });
        stops.push(worker.stop);
      }

      let workersRunning = true;
      const cpu = createCpuMeter({
        pool,
        redisUrl,
        pids: () => ({ receiver: [receiver.pid], worker: workersRunning ? workers.map((w) => w.pid) : [] }),
      });
      stops.push(async () => cpu.stop());
      const send = client.send;
      const count = async () => {
        const { rows } = await pool.query<{ received: string; scored: string }>(
          "SELECT (SELECT count(*) FROM traces) AS received, (SELECT count(*) FROM trace_scores) AS scored",
        );
        return { received: Number(rows[0]!.received), scored: Number(rows[0]!.scored) };
      };

      for (const p of warmup) await send(p);
      for (let i = 0; i < DRAIN_SECONDS * 10 && (await count().then((c) => c.received > c.scored)); i++) await sleep(100);

      const results: {
        rate: number;
        accepted: number;
        scoredPerSec: number;
        backlogEnd: number;
        slopePerSec: number;
        drainS: number;
        p50: number;
        p99: number;
        unscored: number;
        /** CPU ms per trace of the phase, by role, from its start to the end of its drain. */
        cpuPerTrace: CpuSplit;
      }[] = [];
      for (const phase of phases) {
        const before = await count();
        const cpuBefore = await cpu.read();
        const interval = 1000 / (phase.rate / BATCH_SPANS);
        const answeredAt: number[] = [];
        const samples: { t: number; y: number }[] = [];
        const t0 = performance.now();
        const wallStart = Date.now();
        let sending = true;
        const sampler = (async () => {
          while (sending) {
            const c = await count();
            samples.push({ t: (performance.now() - t0) / 1000, y: c.received - c.scored });
            await sleep(1000);
          }
        })();
        // Open loop: each request leaves at its slot whether or not the earlier ones were answered.
        await Promise.all(
          phase.payloads.map(async (p, i) => {
            const wait = t0 + i * interval - performance.now();
            if (wait > 0) await sleep(wait);
            await send(p);
            answeredAt[i] = Date.now();
          }),
        );
        const sendSeconds = (performance.now() - t0) / 1000;
        sending = false;
        await sampler;
        const wallEnd = Date.now();
        const atEnd = await count();
        const backlogEnd = atEnd.received - atEnd.scored;
        const tEnd = performance.now();
        let drained = backlogEnd === 0;
        while (!drained && performance.now() - tEnd < DRAIN_SECONDS * 1000) {
          await sleep(200);
          const c = await count();
          drained = c.received === c.scored;
        }
        const drainS = drained ? (performance.now() - tEnd) / 1000 : Infinity;
        const cpuUsed = cpu.since(cpuBefore, await cpu.read());
        const scoredInPhase = Math.max(1, (await count()).scored - before.scored);
        const { rows } = await pool.query<{ trace_id: string; scored_ms: string }>(
          "SELECT trace_id, (extract(epoch FROM scored_at) * 1000)::text AS scored_ms FROM trace_scores WHERE trace_id = ANY($1)",
          [[...phase.lastBatchOf.keys()]],
        );
        const latencies = rows.map((r) => Number(r.scored_ms) - answeredAt[phase.lastBatchOf.get(r.trace_id)!]!);
        const { rows: inPhase } = await pool.query<{ n: string }>(
          "SELECT count(*) AS n FROM trace_scores WHERE scored_at >= to_timestamp($1 / 1000.0) AND scored_at < to_timestamp($2 / 1000.0)",
          [wallStart, wallEnd],
        );
        const half = samples.filter((s) => s.t >= sendSeconds / 2);
        results.push({
          rate: phase.rate,
          accepted: phase.spans / sendSeconds,
          scoredPerSec: Number(inPhase[0]!.n) / ((wallEnd - wallStart) / 1000),
          backlogEnd,
          slopePerSec: slope(half),
          drainS,
          p50: pct(latencies, 50),
          p99: pct(latencies, 99),
          unscored: phase.lastBatchOf.size - rows.length,
          cpuPerTrace: perTrace(cpuUsed, scoredInPhase),
        });
        console.log(
          `  ${fmt(phase.rate)} spans/s: ${phase.lastBatchOf.size} traces sent (${before.received} before), backlog ${backlogEnd} at the end, ` +
            (drained ? `drained in ${drainS.toFixed(1)} s` : `not drained after ${DRAIN_SECONDS} s`),
        );
        if (!drained) break;
      }

      const parts = await scoreParts(workers.map((w) => w.metricsUrl));
      // Ingest alone, saturated: the workers stopped, the same receiver, fresh traces.
      for (const w of workers) await w.stop();
      workersRunning = false;
      // The receiver is warm from the paced phases: no separate warm-up.
      const ingestBefore = { traces: (await count()).received, cpu: await cpu.read() };
      const ingestRate = saturated.spans / (await runSaturated(saturated.payloads, send));
      const ingestCpu = perTrace(cpu.since(ingestBefore.cpu, await cpu.read()), Math.max(1, (await count()).received - ingestBefore.traces));

      console.log("");
      console.log(
        `${"offered spans/s".padStart(15)} ${"accepted".padStart(9)} ${"scored tr/s".padStart(11)} ${"backlog end".padStart(11)} ${"slope tr/s".padStart(10)} ${"drain s".padStart(7)} ${"p50 ms".padStart(7)} ${"p99 ms".padStart(7)}`,
      );
      for (const r of results)
        console.log(
          `${fmt(r.rate).padStart(15)} ${fmt(r.accepted).padStart(9)} ${r.scoredPerSec.toFixed(1).padStart(11)} ${String(r.backlogEnd).padStart(11)} ${r.slopePerSec.toFixed(1).padStart(10)} ${(Number.isFinite(r.drainS) ? r.drainS.toFixed(1) : "> " + DRAIN_SECONDS).padStart(7)} ${fmt(r.p50).padStart(7)} ${fmt(r.p99).padStart(7)}` +
            (r.unscored ? `   (${r.unscored} traces not scored)` : ""),
        );
      for (const rate of RATES.slice(results.length)) console.log(`${fmt(rate).padStart(15)}   not run: the previous rate did not drain`);
      console.log("");
      if (client.throttled > 0) console.log(`429 answers retried after Retry-After: ${client.throttled}`);
      const sustainable = results.filter((r) => r.drainS <= DRAIN_OK_SECONDS && r.unscored === 0).at(-1);
      console.log(`ingest only, saturated (worker stopped, ${CONCURRENCY} clients): ${fmt(ingestRate)} spans/s`);
      console.log(
        sustainable
          ? `sustainable end to end (highest rate drained within ${DRAIN_OK_SECONDS} s): ${fmt(sustainable.rate)} spans/s, ` +
              `ratio to ingest-only: ${(sustainable.rate / ingestRate).toFixed(2)}`
          : `sustainable end to end: below ${fmt(RATES[0]!)} spans/s (no rate drained within ${DRAIN_OK_SECONDS} s)`,
      );
      if (sustainable && sustainable === results.at(-1) && results.length === RATES.length)
        console.log("(the highest rate offered was sustained: the limit is above it; raise BENCH_RATES)");
      printCpuBudget(results, ingestCpu, sustainable?.rate);
      console.log(`\nworker cost per scored trace (${WORKERS} worker process${WORKERS === 1 ? "" : "es"}, wall ms, mean over ${fmt(parts.scored)} traces):`);
      for (const [part, ms] of parts.msPerTrace) console.log(`  ${part.padEnd(13)} ${ms.toFixed(2).padStart(8)}`);
      console.log(
        `  ${"total".padEnd(13)} ${[...parts.msPerTrace.values()]
          .reduce((a, b) => a + b, 0)
          .toFixed(2)
          .padStart(8)}`,
      );
      console.log(`score jobs deferred (project share full) per scored trace: ${(parts.deferred / Math.max(1, parts.scored)).toFixed(2)}`);
      const twice = [...scoredInputs.values()].filter((n) => n > 1).length;
      console.log(`traces scored twice for the same input: ${twice} (of ${scoredInputs.size} scored (trace, input) pairs)`);
      if (twice > 0) process.exitCode = 1;
    } finally {
      client.close();
      for (const stop of stops.reverse()) await stop();
      await pool.end();
      await purgeQueuePrefix(redisUrl, queuePrefix);
    }
  });

  /**
   * CPU per trace by role, for each paced phase (ingest and scoring together) and for ingest alone. On a machine
   * where every process shares the same cores and CPU is the limit, throughput is cores / CPU per trace, so
   * ingest-only CPU over end-to-end CPU is the ratio of the two rates that CPU allows.
   */
  function printCpuBudget(results: { rate: number; cpuPerTrace: CpuSplit }[], ingest: CpuSplit, sustainableRate: number | undefined) {
    const roles: Role[] = ["client", "receiver", "worker", "postgres", "redis"];
    const total = (c: CpuSplit) => roles.reduce((a, r) => a + c[r], 0);
    console.log(`\nCPU per trace (ms, by process; client = this load generator):`);
    console.log(`${"phase".padEnd(22)} ${roles.map((r) => r.padStart(9)).join(" ")} ${"total".padStart(9)}`);
    const row = (label: string, c: CpuSplit) =>
      console.log(
        `${label.padEnd(22)} ${roles.map((r) => (Number.isFinite(c[r]) ? c[r].toFixed(2) : "-").padStart(9)).join(" ")} ${total(c).toFixed(2).padStart(9)}`,
      );
    for (const r of results) row(`${fmt(r.rate)} spans/s + drain`, r.cpuPerTrace);
    row("ingest only", ingest);
    const at = results.find((r) => r.rate === sustainableRate) ?? results[0];
    if (at && Number.isFinite(total(at.cpuPerTrace)) && Number.isFinite(total(ingest)))
      console.log(
        `end to end costs ${(total(at.cpuPerTrace) / total(ingest)).toFixed(1)}× the CPU of ingest alone per trace (at ${fmt(at.rate)} spans/s): ` +
          `were both limited by CPU alone on the same cores, the ratio of their rates would be about ${(total(ingest) / total(at.cpuPerTrace)).toFixed(2)} ` +
          `(a phase that also waits, e.g. ingest on its commits, moves the measured ratio off it)`,
      );
  }

  /** Sums the workers' crux_worker_score_part_seconds and deferred score jobs: ms per scored trace by part. */
  async function scoreParts(urls: string[]) {
    const sums = new Map<string, number>();
    let scored = 0;
    let deferred = 0;
    for (const url of urls) {
      const text = await (await fetch(url)).text();
      const label = (labels: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(labels)?.[1];
      for (const [, name, labels, value] of text.matchAll(/^(\w+)\{([^}]*)\} (\S+)$/gm)) {
        const part = label(labels!, "part");
        if (name === "crux_worker_score_part_seconds_sum" && part) sums.set(part, (sums.get(part) ?? 0) + Number(value));
        // Every scored trace has a persist part.
        if (name === "crux_worker_score_part_seconds_count" && part === "persist") scored += Number(value);
        if (name === "crux_worker_jobs_total" && label(labels!, "queue") === "trace.score" && label(labels!, "outcome") === "deferred")
          deferred += Number(value);
      }
    }
    const msPerTrace = new Map([...sums].map(([part, s]) => [part, (s * 1000) / Math.max(1, scored)]));
    return { msPerTrace, scored, deferred };
  }

  async function runSaturated(payloads: Uint8Array[], send: (p: Uint8Array) => Promise<void>) {
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < payloads.length) await send(payloads[next++]!);
      }),
    );
    return (performance.now() - t0) / 1000;
  }
}

function perTrace(c: CpuSplit, traces: number): CpuSplit {
  return { client: c.client / traces, receiver: c.receiver / traces, worker: c.worker / traces, postgres: c.postgres / traces, redis: c.redis / traces };
}

await main();
