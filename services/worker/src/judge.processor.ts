/**
 * trace.judge, the third stage (docs/architecture.md §6): runs the registered
 * judge producers of a scored trace, and the project's LLM judges when its
 * judge settings turn them on (judge-policy.ts). Each producer's key is (id,
 * version, model, input hash over the inputs it declared and the settings it
 * reads, such as the outcome rubric: judgeInputHash in packages/core);
 * it runs only when trace_verdicts has no row for that key, and its verdict
 * is added as a new row (older rows are kept). persistTraceScores never
 * touches trace_verdicts, so a re-settle or a re-score does not wipe a
 * verdict, and a verdict is not paid for twice for the same inputs.
 *
 * Reads: the trace summary, the outcome override and the trace's verdict keys;
 * the spans only when some producer has to run. Before each LLM judge runs,
 * the project's daily budget and its provider endpoint's rate are checked:
 * once reached, the job is deferred (verdicts already stored stay; the rest
 * run when it comes back); runs over the endpoint's concurrency wait in the
 * process (judge-policy.ts).
 *
 * Paid once across processes: before a missing producer runs, its lease in
 * judge_leases is taken (packages/db judge-leases.ts); a lease held by another
 * worker defers the job briefly (then the verdict is stored and the producer
 * skipped, or the lease expired and this job takes it). The lease ends with
 * the verdict, in its transaction, or when the run fails.
 */
import { isPermanent, judgeInputHash, PermanentError, prepareTrace, runTagsOf, spanSetHash } from "@crux/core";
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import {
  describeStorageError,
  getOutcomeOverride,
  getTrace,
  getTraceSummary,
  insertVerdict,
  listVerdicts,
  releaseJudgeLease,
  takeJudgeLease,
  type Database,
  type VerdictKey,
  clearJudgeRequest,
  deferJudgeRequest,
  type TraceSummary,
} from "@crux/db";
import { callsOf, JudgeUnavailableError } from "@crux/judges";
import { isJobDeferral, JobDeferral, type Payload } from "@crux/queue";
import type { Logger } from "@crux/runtime";
import { frozenSpanSetHash } from "./frozen-span-set.ts";
import type { JudgeProducer, JudgeProducerInput, JudgeVerdict } from "./judge-producer.ts";
import type { JudgePolicy } from "./judge-policy.ts";
import { pure } from "./pure.ts";

export interface JudgeDeps {
  database: Database;
  log: Logger;
  /** Fixed producers, run for every project. */
  producers: readonly JudgeProducer[];
  /** The projects' LLM judges; none when omitted. */
  policy?: JudgePolicy | undefined;
  /** How long a lease holds before another worker may take it: longer than any run (the judge timeout × its call bound). */
  leaseMs: number;
  /** This processor's name in judge_leases; default host, pid and a random id (two processors are two holders). */
  holder?: string;
  /**
   * How long a trace's judging waits once its provider kept answering 429 through the call policy's
   * retries (longer when the provider asked for longer). Default 5 minutes.
   */
  rateLimitDeferMs?: number;
}

/**
 * A provider still rate limiting after the bounded retries (packages/judges) is not called again
 * for this trace for a while: the job and its judge request are deferred together, so neither the
 * queue's retry nor the sweeper calls it again every few seconds.
 */
function rateLimitDeferral(err: unknown, deferMs: number, traceId: string): JobDeferral | null {
  if (!(err instanceof JudgeUnavailableError) || callsOf(err).at(-1)?.outcome !== "rate_limited") return null;
  const delayMs = Math.max(deferMs, err.retryAfterSeconds * 1000);
  return new JobDeferral(
    delayMs,
    `judge provider still rate limiting (429) after its retries: judging of trace ${traceId} waits ${Math.round(delayMs / 1000)} s`,
  );
}

interface Run {
  producer: JudgeProducer;
  /** The budget and rate check an LLM judge waits on. */
  beforeRun: (() => Promise<void>) | null;
  /** Runs it within its endpoint's concurrency (LLM judges). */
  withSlot: (<T>(run: () => Promise<T>) => Promise<T>) | null;
}

interface Keyed extends Run {
  inputHash: string;
}

const direct = <T>(run: () => Promise<T>): Promise<T> => run();

const keyOf = (producerId: string, producerVersion: number, model: string, inputHash: string) =>
  `${producerId}\u0000${producerVersion}\u0000${model}\u0000${inputHash}`;

function checkedVerdict(producer: JudgeProducer, verdict: JudgeVerdict): JudgeVerdict {
  if (verdict.status !== "succeeded" && verdict.status !== "failed") {
    throw new PermanentError("invalid_verdict", `judge producer ${producer.id} returned status ${JSON.stringify(verdict.status)} (succeeded or failed)`);
  }
  if (verdict.result === undefined) throw new PermanentError("invalid_verdict", `judge producer ${producer.id} returned no result`);
  return verdict;
}

/** A second job of a trace being judged in this process waits this long, then finds the verdicts stored. */
const sameTraceDeferMs = 1_000;
/** A job whose producer another worker holds looks again after this long at most (the lease's end, if sooner). */
const leaseRecheckMs = 2_000;

export function createJudgeProcessor(deps: JudgeDeps) {
  // The queue runs one trace's judge jobs one at a time (debounced per trace); a second run in this process
  // (a stalled job redelivered, a direct caller) waits for the first, and judge_leases covers other processes.
  const judging = new Set<string>();
  const holder = deps.holder ?? `${hostname()}:${process.pid}:${randomUUID()}`;
  return async function judge(payload: Payload<"trace.judge">): Promise<void> {
    const key = `${payload.projectId}:${payload.traceId}`;
    if (judging.has(key)) throw new JobDeferral(sameTraceDeferMs, `trace ${payload.traceId} is being judged by another job`);
    judging.add(key);
    try {
      const trace = await getTraceSummary(deps.database, payload.projectId, payload.traceId);
      const seen = trace?.judgeRequestedAt ?? null;
      try {
        await judgeTrace(payload, trace);
      } catch (thrown) {
        const err = rateLimitDeferral(thrown, deps.rateLimitDeferMs ?? 300_000, payload.traceId) ?? thrown;
        // Deferred: the request waits with the job (the sweeper leaves it until then). Permanent: no retry can answer it.
        if (seen !== null && isJobDeferral(err)) await deferJudgeRequest(deps.database, payload.projectId, payload.traceId, seen, err.delayMs);
        else if (seen !== null && isPermanent(err)) await clearJudgeRequest(deps.database, payload.projectId, payload.traceId, seen);
        throw err;
      }
      // Answered (or nothing to judge); a request made meanwhile is newer and stays.
      if (seen !== null) await clearJudgeRequest(deps.database, payload.projectId, payload.traceId, seen);
    } finally {
      judging.delete(key);
    }
  };

  async function judgeTrace(payload: Payload<"trace.judge">, trace: TraceSummary | null): Promise<void> {
    const { projectId, traceId } = payload;
    const llm = deps.policy ? await deps.policy.forProject(projectId) : { off: "no LLM judges in this worker" };
    const runs: Run[] = [
      ...deps.producers.map((producer) => ({ producer, beforeRun: null, withSlot: null })),
      ...("off" in llm ? [] : llm.producers.map((producer) => ({ producer, beforeRun: llm.beforeEach, withSlot: llm.withSlot }))),
    ];
    if (runs.length === 0) {
      deps.log.debug({ ...payload, reason: "off" in llm ? llm.off : "no judge" }, "judge: judges are off for the project");
      return;
    }
    const frozen = trace ? await frozenSpanSetHash(deps.database, trace) : null;
    if (frozen === null) {
      deps.log.debug(payload, "judge: the trace is unknown or re-opened; its next score job starts the judges");
      return;
    }
    const override = await getOutcomeOverride(deps.database, projectId, traceId);
    const keyed: Keyed[] = runs.map((run) => ({
      ...run,
      inputHash: judgeInputHash(run.producer.inputs, { spanSetHash: frozen, outcomeOverride: override, settings: run.producer.settingsKey ?? null }),
    }));
    const stored = new Set((await listVerdicts(deps.database, projectId, traceId)).map((v) => keyOf(v.producerId, v.producerVersion, v.model, v.inputHash)));
    const missing = keyed.filter((k) => !stored.has(keyOf(k.producer.id, k.producer.version, k.producer.model ?? "", k.inputHash)));
    if (missing.length === 0) {
      deps.log.debug({ ...payload, producers: keyed.length }, "judge: every verdict is current");
      return;
    }
    const found = await getTrace(deps.database, projectId, traceId);
    if (!found) return;
    if (spanSetHash(found.spans.map((s) => s.spanId)) !== frozen) {
      deps.log.debug(payload, "judge: spans arrived since the trace was settled; its next settle starts the judges again");
      return;
    }
    const trajectories = pure("trajectory build", traceId, () => prepareTrace(found.spans));
    const runTags = pure("run tags", traceId, () => runTagsOf(trajectories, override));
    const judged: string[] = [];
    for (const run of missing) {
      const key: VerdictKey = { producerId: run.producer.id, producerVersion: run.producer.version, model: run.producer.model ?? "", inputHash: run.inputHash };
      // The place first, then the lease: a lease never runs out while its holder waits for a place.
      const paid = await (run.withSlot ?? direct)(() => runLeased(run, key, { projectId, traceId, spans: found.spans, trajectories, runTags }));
      if (paid) judged.push(run.producer.id);
    }
    deps.log.info({ ...payload, judged, kept: keyed.length - judged.length }, "trace judged");
  }

  /** Runs one missing producer under its lease; false when another worker stored its verdict meanwhile. */
  async function runLeased(run: Keyed, key: VerdictKey, input: JudgeProducerInput): Promise<boolean> {
    const { projectId, traceId } = input;
    const lease = await takeJudgeLease(deps.database, projectId, traceId, key, holder, deps.leaseMs);
    if (!lease.taken) {
      if (lease.verdictStored) return false;
      throw new JobDeferral(
        Math.max(1, Math.min(lease.expiresInMs, leaseRecheckMs)),
        `judge ${run.producer.id} of trace ${traceId} is being run by another worker (its lease ends in ${lease.expiresInMs} ms)`,
      );
    }
    try {
      if (run.beforeRun) await run.beforeRun();
      const verdict = checkedVerdict(run.producer, await run.producer.judge(input));
      await insertVerdict(deps.database, projectId, traceId, { ...key, status: verdict.status, result: verdict.result }, { leaseHolder: holder });
      return true;
    } catch (err) {
      // Another worker may run it now; a release that fails leaves the lease to expire.
      await releaseJudgeLease(deps.database, projectId, traceId, key, holder).catch((releaseError: unknown) =>
        deps.log.warn(
          { projectId, traceId, producer: run.producer.id, error: describeStorageError(releaseError).message },
          "judge lease not released; it expires",
        ),
      );
      throw err;
    }
  }
}
