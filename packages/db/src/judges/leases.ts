/**
 * judge_leases: one worker pays for a missing verdict, however many run the trace's judge job at
 * once. The lease is taken with one compare-and-set statement (free, expired, or already this
 * holder's), and only while the verdict is still missing; it ends with the verdict (insertVerdict
 * deletes it in the verdict's transaction) or with the failed run (releaseJudgeLease). Expiry is
 * on the database's clock, so workers' clocks do not matter.
 */
import { and, eq, sql, type SQL } from "drizzle-orm";
import { rowsOf, type Database } from "../client.ts";
import { judgeLeases } from "../schema/judges.ts";
import type { VerdictKey } from "./verdicts.ts";

/** A stored verdict that is run again: failed, with its retry time past (verdicts.ts). */
export const failedAndDue = (status: SQL, retryAt: SQL): SQL => sql`(${status} = 'failed' and ${retryAt} <= now())`;

/** The lease's producer_key: the verdict key it guards, as one text. */
function judgeLeaseKey(key: VerdictKey): string {
  return JSON.stringify([key.producerId, key.producerVersion, key.model, key.inputHash]);
}

export type JudgeLeaseTake =
  | { taken: true }
  /** Someone else holds it for `expiresInMs` more (0: it just ended), or the verdict was stored meanwhile. */
  | { taken: false; verdictStored: boolean; expiresInMs: number };

/** A verdict is stored for the key, and it is not a failed one due for a retry (verdicts.ts). */
const verdictExists = (projectId: string, traceId: string, key: VerdictKey) => sql`exists (
  select 1 from trace_verdicts v
  where v.project_id = ${projectId} and v.trace_id = ${traceId} and v.producer_id = ${key.producerId}
    and v.producer_version = ${key.producerVersion} and v.model = ${key.model} and v.input_hash = ${key.inputHash}
    and not ${failedAndDue(sql`v.status`, sql`v.retry_at`)})`;

/** Takes the lease of (trace, verdict key) for `holder` for `ttlMs`, unless another live holder has it or the verdict exists. */
export async function takeJudgeLease(
  database: Database,
  projectId: string,
  traceId: string,
  key: VerdictKey,
  holder: string,
  ttlMs: number,
): Promise<JudgeLeaseTake> {
  const producerKey = judgeLeaseKey(key);
  const taken = rowsOf(
    await database.db.execute(sql`
      insert into judge_leases (project_id, trace_id, producer_key, holder, expires_at)
      select ${projectId}, ${traceId}, ${producerKey}, ${holder}, now() + ${Math.ceil(ttlMs)} * interval '1 millisecond'
      where not ${verdictExists(projectId, traceId, key)}
      on conflict (project_id, trace_id, producer_key) do update set holder = excluded.holder, expires_at = excluded.expires_at
      where judge_leases.expires_at < now() or judge_leases.holder = excluded.holder
      returning holder`),
  );
  if (taken.length > 0) return { taken: true };
  const [state] = rowsOf(
    await database.db.execute(sql`
      select ${verdictExists(projectId, traceId, key)} as stored,
        (select greatest(0, ceil(extract(epoch from (l.expires_at - now())) * 1000))::float8 from judge_leases l
         where l.project_id = ${projectId} and l.trace_id = ${traceId} and l.producer_key = ${producerKey}) as expires_in_ms`),
  );
  return { taken: false, verdictStored: state?.stored === true, expiresInMs: Number(state?.expires_in_ms ?? 0) };
}

/** Ends `holder`'s lease (a failed or deferred run); a lease another holder took over since is left alone. */
export async function releaseJudgeLease(database: Database, projectId: string, traceId: string, key: VerdictKey, holder: string): Promise<void> {
  await database.db.delete(judgeLeases).where(leaseOf(projectId, traceId, key, holder));
}

export const leaseOf = (projectId: string, traceId: string, key: VerdictKey, holder: string) =>
  and(eq(judgeLeases.projectId, projectId), eq(judgeLeases.traceId, traceId), eq(judgeLeases.producerKey, judgeLeaseKey(key)), eq(judgeLeases.holder, holder));
