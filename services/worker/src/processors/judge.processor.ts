/**
 * trace.judge, the third stage (docs/architecture.md §6): runs the registered
 * judge producers of a scored trace, and the project's LLM judges when its
 * judge settings turn them on (judging/judge-policy.ts). Each producer's key is (id,
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
 * process (judging/judge-policy.ts).
 *
 * Paid once across processes: before a missing producer runs, its lease in
 * judge_leases is taken (packages/db judges/leases.ts); a lease held by another
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
  isStorageUnavailable,
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
import { addContent } from "@crux/otlp";
import { isJobDeferral, JobDeferral, type Payload } from "@crux/queue";
import type { Logger } from "@crux/runtime";
import { frozenSpanSetHash } from "../scoring/frozen-span-set.ts";
import type { JudgeProducer, JudgeProducerInput, JudgeVerdict } from "../judging/judge-producer.ts";
import type { JudgePolicy } from "../judging/judge-policy.ts";
import { pure } from "../scoring/pure.ts";

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
  /** How long a verdict store is tried again while the database is unreachable before the job fails (its retry stores the verdict kept); default 15 s. */
  storeRetryMs?: number;
  /**
   * How long a trace's judging waits once its provider kept answering 429 through the call policy's
   * retries (longer when the provider asked for longer). Default 5 minutes.
   */
  rateLimitDeferMs?: number;
}

/** Automatic retries of a failed verdict: 5 min after the first failure, ×4 each time (20 min, 80 min, 5.3 h), then only on request. */
export const failedVerdictRetry = { firstDelayMs: 5 * 60_000, factor: 4, automaticAttempts: 5 };

/** When attempt `attempts` of a key failed: the delay before the next automatic retry, or null past the last. */
export function failedVerdictRetryDelayMs(attempts: number): number | null {
  if (attempts >= failedVerdictRetry.automaticAttempts) return null;
  return failedVerdictRetry.firstDelayMs * failedVerdictRetry.factor ** (attempts - 1);
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

/** A verdict store that meets a database outage is tried again for this long (by default), backing off from 100 ms to 2 s. */
const defaultStoreRetryMs = 15_000;
/** Verdicts paid for and not stored yet are kept for the job's retry, at most this many per processor. */
const maxUnsaved = 1_000;

export function createJudgeProcessor(deps: JudgeDeps) {
  /** Paid verdicts whose store failed (the database was away), by trace and verdict key. */
  const unsaved = new Map<string, { verdict: JudgeVerdict; retryInMs: number | null }>();
  const rememberUnsaved = (key: string, paid: { verdict: JudgeVerdict; retryInMs: number | null }) => {
    if (unsaved.size >= maxUnsaved) unsaved.delete(unsaved.keys().next().value!);
    unsaved.set(key, paid);
  };
  /** Runs a store, again while the database is unreachable (a dropped connection), for up to storeRetryMs. */
  async function storeSurvivingOutages<T>(store: () => Promise<T>): Promise<T> {
    const giveUpAt = Date.now() + (deps.storeRetryMs ?? defaultStoreRetryMs);
    for (let delayMs = 100; ; delayMs = Math.min(delayMs * 2, 2_000)) {
      try {
        return await store();
      } catch (err) {
        if (!isStorageUnavailable(err) || Date.now() + delayMs > giveUpAt) throw err;
        deps.log.warn({ error: describeStorageError(err).message, retryInMs: delayMs }, "judge verdict not stored: the database is unreachable; trying again");
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    }
  }

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
      let retryInMs: number | null;
      try {
        retryInMs = await judgeTrace(payload, trace);
      } catch (thrown) {
        const err = rateLimitDeferral(thrown, deps.rateLimitDeferMs ?? 300_000, payload.traceId) ?? thrown;
        // Deferred: the request waits with the job (the sweeper leaves it until then). Permanent: no retry can answer it.
        if (seen !== null && isJobDeferral(err)) await deferJudgeRequest(deps.database, payload.projectId, payload.traceId, seen, err.delayMs);
        else if (seen !== null && isPermanent(err)) await clearJudgeRequest(deps.database, payload.projectId, payload.traceId, seen);
        throw err;
      }
      // Answered (or nothing to judge); a request made meanwhile is newer and stays. A failed verdict
      // with an automatic retry ahead keeps the request, moved to then: the sweeper runs the job again.
      if (seen !== null && retryInMs !== null) await deferJudgeRequest(deps.database, payload.projectId, payload.traceId, seen, retryInMs);
      else if (seen !== null) await clearJudgeRequest(deps.database, payload.projectId, payload.traceId, seen);
    } finally {
      judging.delete(key);
    }
  };

  /** Runs what is missing or due; returns when the next automatic retry of a failed verdict is due (null: none). */
  async function judgeTrace(payload: Payload<"trace.judge">, trace: TraceSummary | null): Promise<number | null> {
    const { projectId, traceId } = payload;
    const llm = deps.policy ? await deps.policy.forProject(projectId) : { off: "no LLM judges in this worker" };
    const runs: Run[] = [
      ...deps.producers.map((producer) => ({ producer, beforeRun: null, withSlot: null })),
      ...("off" in llm ? [] : llm.producers.map((producer) => ({ producer, beforeRun: llm.beforeEach, withSlot: llm.withSlot }))),
    ];
    if (runs.length === 0) {
      deps.log.debug({ ...payload, reason: "off" in llm ? llm.off : "no judge" }, "judge: judges are off for the project");
      return null;
    }
    const frozen = trace ? await frozenSpanSetHash(deps.database, trace) : null;
    if (frozen === null) {
      deps.log.debug(payload, "judge: the trace is unknown or re-opened; its next score job starts the judges");
      return null;
    }
    const override = await getOutcomeOverride(deps.database, projectId, traceId);
    const keyed: Keyed[] = runs.map((run) => ({
      ...run,
      inputHash: judgeInputHash(run.producer.inputs, { spanSetHash: frozen, outcomeOverride: override, settings: run.producer.settingsKey ?? null }),
    }));
    const stored = new Map(
      (await listVerdicts(deps.database, projectId, traceId)).map((v) => [keyOf(v.producerId, v.producerVersion, v.model, v.inputHash), v]),
    );
    const storedOf = (k: Keyed) => stored.get(keyOf(k.producer.id, k.producer.version, k.producer.model ?? "", k.inputHash));
    // Missing, or a failed verdict whose retry is due (its backoff ran out, or POST /traces/:id/judge
    // asked), on the database's clock, which also decides the lease and the store.
    const missing = keyed.filter((k) => {
      const v = storedOf(k);
      return v === undefined || (v.status === "failed" && v.retryInMs !== null && v.retryInMs <= 0);
    });
    // The next automatic retry of a failed verdict not due yet: the judge request waits for it.
    const later = keyed.map((k) => storedOf(k)?.retryInMs ?? null).filter((ms): ms is number => ms !== null && ms > 0);
    const nextRetryInMs = later.length === 0 ? null : Math.min(...later);
    if (missing.length === 0) {
      deps.log.debug({ ...payload, producers: keyed.length }, "judge: every verdict is current");
      return nextRetryInMs;
    }
    const found = await getTrace(deps.database, projectId, traceId);
    if (!found) return null;
    if (spanSetHash(found.spans.map((s) => s.spanId)) !== frozen) {
      deps.log.debug(payload, "judge: spans arrived since the trace was settled; its next settle starts the judges again");
      return null;
    }
    // Content and run tags are derived from the stored attributes, never stored (addContent adds them in place).
    const spans = found.spans.map(addContent);
    const trajectories = pure("trajectory build", traceId, () => prepareTrace(spans));
    const runTags = pure("run tags", traceId, () => runTagsOf(trajectories, override));
    const judged: string[] = [];
    let retryInMs = nextRetryInMs;
    for (const run of missing) {
      const key: VerdictKey = { producerId: run.producer.id, producerVersion: run.producer.version, model: run.producer.model ?? "", inputHash: run.inputHash };
      const attempts = (storedOf(run)?.attempts ?? 0) + 1;
      // The place first, then the lease: a lease never runs out while its holder waits for a place.
      const ran = await (run.withSlot ?? direct)(() => runLeased(run, key, attempts, { projectId, traceId, spans, trajectories, runTags }));
      if (ran.stored) judged.push(run.producer.id);
      if (ran.retryInMs !== null) retryInMs = retryInMs === null ? ran.retryInMs : Math.min(retryInMs, ran.retryInMs);
    }
    deps.log.info({ ...payload, judged, kept: keyed.length - judged.length }, "trace judged");
    return retryInMs;
  }

  /**
   * Runs one missing producer under its lease (attempt `attempts` of its key). stored: false when
   * another worker stored its verdict meanwhile; retryInMs: when a failed verdict is retried on its own.
   */
  async function runLeased(run: Keyed, key: VerdictKey, attempts: number, input: JudgeProducerInput): Promise<{ stored: boolean; retryInMs: number | null }> {
    const { projectId, traceId } = input;
    const lease = await takeJudgeLease(deps.database, projectId, traceId, key, holder, deps.leaseMs);
    if (!lease.taken) {
      if (lease.verdictStored) return { stored: false, retryInMs: null };
      throw new JobDeferral(
        Math.max(1, Math.min(lease.expiresInMs, leaseRecheckMs)),
        `judge ${run.producer.id} of trace ${traceId} is being run by another worker (its lease ends in ${lease.expiresInMs} ms)`,
      );
    }
    const paidKey = `${projectId}\u0000${traceId}\u0000${keyOf(key.producerId, key.producerVersion, key.model, key.inputHash)}`;
    try {
      // A verdict paid for by an earlier run of this job whose store failed is stored, not paid for again.
      let paid = unsaved.get(paidKey);
      if (paid === undefined) {
        if (run.beforeRun) await run.beforeRun();
        const verdict = checkedVerdict(run.producer, await run.producer.judge(input));
        paid = { verdict, retryInMs: verdict.status === "failed" ? failedVerdictRetryDelayMs(attempts) : null };
        rememberUnsaved(paidKey, paid);
      }
      const { verdict, retryInMs } = paid;
      await storeSurvivingOutages(() =>
        insertVerdict(deps.database, projectId, traceId, { ...key, status: verdict.status, result: verdict.result, retryInMs }, { leaseHolder: holder }),
      );
      unsaved.delete(paidKey);
      return { stored: true, retryInMs };
    } catch (err) {
      // Paid but not stored (the database is away): the lease is kept, so no other worker pays
      // while this one holds the verdict; the job's retry stores it (or the lease expires).
      if (unsaved.has(paidKey) && isStorageUnavailable(err)) throw err;
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
