/**
 * What the worker loads before scoring a trace (ScoringConfig), the outcome
 * override set through the API, and the baseline-run lookup.
 */
import {
  defaultPriceTable,
  type AgentContract,
  type HandoffContract,
  type Milestone,
  type ModelPrice,
  type RunTagsOverride,
  type ScoringConfig,
} from "@crux/core";
import { and, asc, eq, isNull, or, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { rowsOf, type Database } from "../client.ts";
import { agentContracts, baselines, handoffContracts, milestoneSets, outcomeOverrides, prices } from "../schema/config.ts";
import { traces } from "../schema/traces.ts";
import { bumpScoreRequest } from "../stages/settle.ts";
import { currentBaseline } from "../scores/baselines.ts";
import { getProjectSettings } from "./config.repository.ts";

/** Rows for the service plus project-wide rows (service null); no service = project-wide only. */
function serviceScope(column: PgColumn, serviceName: string | null) {
  return serviceName === null ? isNull(column) : or(isNull(column), eq(column, serviceName));
}

/** Keeps one row per key, a service-specific row winning over a project-wide one. */
function serviceWins<R extends { serviceName: string | null }>(rows: R[], key: (r: R) => string): R[] {
  const byKey = new Map<string, R>();
  for (const row of rows) {
    const k = key(row);
    const current = byKey.get(k);
    if (!current || (current.serviceName === null && row.serviceName !== null)) byKey.set(k, row);
  }
  return [...byKey.values()];
}

type PriceRow = typeof prices.$inferSelect;

/** The table scoring uses: the seeded defaults, each replaced by the project's price of the same model id. */
function effectivePriceTable(rows: PriceRow[]): Map<string, { price: ModelPrice; row: PriceRow | null }> {
  const byModel = new Map<string, { price: ModelPrice; row: PriceRow | null }>(defaultPriceTable.map((p) => [p.model.toLowerCase(), { price: p, row: null }]));
  for (const row of rows) {
    const price: ModelPrice = {
      model: row.model.toLowerCase(),
      inputPerMTok: row.inputPerMTok,
      outputPerMTok: row.outputPerMTok,
      ...(row.cachedInputPerMTok === null ? {} : { cachedInputPerMTok: row.cachedInputPerMTok }),
    };
    byModel.set(price.model, { price, row });
  }
  return byModel;
}

export interface EffectivePrice {
  model: string;
  inputPerMTok: number;
  outputPerMTok: number;
  /** null: cache reads are billed at the input price. */
  cachedInputPerMTok: number | null;
  /** "default": the seeded list price; "project": the project's own row, which replaced the default of that model if any. */
  source: "default" | "project";
  /** The project's row (null for a default). */
  id: string | null;
  createdAt: Date | null;
  updatedAt: Date | null;
}

/** Every price scoring applies for the project, by model id: what loadScoringConfig gives the scorer. */
export async function listEffectivePrices(database: Database, projectId: string): Promise<EffectivePrice[]> {
  const rows = await database.db.select().from(prices).where(eq(prices.projectId, projectId));
  return [...effectivePriceTable(rows).values()]
    .map(({ price, row }) => ({
      model: price.model,
      inputPerMTok: price.inputPerMTok,
      outputPerMTok: price.outputPerMTok,
      cachedInputPerMTok: price.cachedInputPerMTok ?? null,
      source: row ? ("project" as const) : ("default" as const),
      id: row?.id ?? null,
      createdAt: row?.createdAt ?? null,
      updatedAt: row?.updatedAt ?? null,
    }))
    .sort((a, b) => (a.model < b.model ? -1 : a.model > b.model ? 1 : 0));
}

export interface ContractRows {
  agentRows: (typeof agentContracts.$inferSelect)[];
  handoffRows: (typeof handoffContracts.$inferSelect)[];
  milestoneRows: (typeof milestoneSets.$inferSelect)[];
}

/** The contracts and milestone set a trace of the service is scored with: its rows and the project-wide ones, a service row winning. */
export function scopedContracts(rows: ContractRows, serviceName: string | null): Pick<ScoringConfig, "agentContracts" | "handoffContracts" | "milestoneSet"> {
  const inScope = <R extends { serviceName: string | null }>(r: R): boolean => r.serviceName === null || r.serviceName === serviceName;
  const agentContractList: AgentContract[] = serviceWins(rows.agentRows.filter(inScope), (r) => r.agent.toLowerCase()).map((r) => ({
    agent: r.agent,
    role: r.role,
    ...(r.allowedTools === null ? {} : { allowedTools: r.allowedTools }),
    ...(r.forbiddenTools === null ? {} : { forbiddenTools: r.forbiddenTools }),
    ...(r.isVerifier ? { isVerifier: true } : {}),
    ...(r.completionCondition === null ? {} : { completionCondition: r.completionCondition }),
  }));
  const handoffContractList: HandoffContract[] = serviceWins(
    rows.handoffRows.filter(inScope),
    (r) => `${r.fromAgent.toLowerCase()}\u0000${r.toAgent.toLowerCase()}`,
  ).map((r) => ({
    from: r.fromAgent,
    to: r.toAgent,
    ...(r.jsonSchema === null ? {} : { jsonSchema: r.jsonSchema }),
    ...(r.requiredConstraints === null ? {} : { requiredConstraints: r.requiredConstraints }),
  }));
  const milestoneRow = serviceWins(rows.milestoneRows.filter(inScope), () => "set")[0];
  return {
    agentContracts: agentContractList,
    handoffContracts: handoffContractList,
    milestoneSet: milestoneRow ? { id: milestoneRow.id, milestones: milestoneRow.milestones as Milestone<string>[] } : null,
  };
}

export async function loadScoringConfig(database: Database, projectId: string, serviceName: string | null, taskId: string | null): Promise<ScoringConfig> {
  const db = database.db;
  const [priceRows, agentRows, handoffRows, milestoneRows, baselineRows, settings] = await Promise.all([
    // Every list in a fixed order: the score stage hashes the config (scoreInputHash), so the same rows must give the same config.
    db.select().from(prices).where(eq(prices.projectId, projectId)).orderBy(asc(prices.model)),
    db
      .select()
      .from(agentContracts)
      .where(and(eq(agentContracts.projectId, projectId), serviceScope(agentContracts.serviceName, serviceName)))
      .orderBy(asc(agentContracts.id)),
    db
      .select()
      .from(handoffContracts)
      .where(and(eq(handoffContracts.projectId, projectId), serviceScope(handoffContracts.serviceName, serviceName)))
      .orderBy(asc(handoffContracts.id)),
    db
      .select()
      .from(milestoneSets)
      .where(and(eq(milestoneSets.projectId, projectId), serviceScope(milestoneSets.serviceName, serviceName)))
      .orderBy(asc(milestoneSets.id)),
    db
      .select()
      .from(baselines)
      .where(
        and(
          eq(baselines.projectId, projectId),
          or(
            taskId === null ? sql`false` : eq(baselines.taskId, taskId),
            serviceName === null ? sql`false` : and(isNull(baselines.taskId), eq(baselines.serviceName, serviceName)),
          ),
        ),
      )
      .orderBy(asc(baselines.id)),
    getProjectSettings(database, projectId),
  ]);

  const byModel = effectivePriceTable(priceRows);

  const contracts = scopedContracts({ agentRows, handoffRows, milestoneRows }, serviceName);

  // Task id (this service's row, then any service's, then project-wide), else the service's figure.
  const rank = (b: (typeof baselineRows)[number]): number =>
    b.taskId !== null ? (b.serviceName === serviceName && serviceName !== null ? 0 : b.serviceName === null ? 1 : 2) : 3;
  const baseline = [...baselineRows].sort((a, b) => rank(a) - rank(b))[0];

  return {
    prices: [...byModel.values()].map((e) => e.price),
    ...contracts,
    configuredBaseline: baseline ? { tokens: baseline.tokens, costUsd: baseline.costUsd } : null,
    coordinationWeights: settings.coordinationWeights,
    repetitionK: settings.repetitionK,
  };
}

export async function getOutcomeOverride(database: Database, projectId: string, traceId: string): Promise<RunTagsOverride | null> {
  const [row] = await database.db
    .select({ override: outcomeOverrides.override })
    .from(outcomeOverrides)
    .where(and(eq(outcomeOverrides.projectId, projectId), eq(outcomeOverrides.traceId, traceId)))
    .limit(1);
  return row ? (row.override as RunTagsOverride) : null;
}

/**
 * Merges the given fields into the trace's override (fields not given keep
 * their earlier override) and requests the score stage, in one transaction.
 * The span set did not change, so the trace is not re-settled: its score
 * stage (enqueued by the API, or by the worker's sweeper once the request is
 * older than its quiet period) re-scores it with the new outcome. A score
 * already in flight with the old outcome cannot clear the new request.
 * Returns null when the trace is unknown (nothing is stored).
 */
export async function setOutcomeOverride(
  database: Database,
  projectId: string,
  traceId: string,
  override: RunTagsOverride,
): Promise<{ override: RunTagsOverride } | null> {
  return database.db.transaction(async (tx) => {
    const marked = await tx
      .update(traces)
      .set({ scoreRequestedAt: bumpScoreRequest })
      .where(and(eq(traces.projectId, projectId), eq(traces.traceId, traceId)))
      .returning({ traceId: traces.traceId });
    if (marked.length === 0) return null;
    const rows = rowsOf(
      await tx.execute(sql`
        INSERT INTO outcome_overrides AS o (project_id, trace_id, override, updated_at)
        VALUES (${projectId}, ${traceId}, ${JSON.stringify(override)}::jsonb, now())
        ON CONFLICT (project_id, trace_id) DO UPDATE SET override = o.override || excluded.override, updated_at = now()
        RETURNING override`),
    );
    const stored = rows[0]?.override;
    return { override: (typeof stored === "string" ? JSON.parse(stored) : stored) as RunTagsOverride };
  });
}

/**
 * Mean totals of the scored baseline-tagged runs of a task (cost over those with a known cost);
 * null when there is none. (The worker stores multipliers with it at scoring time; reads measure
 * against the current baseline instead, see scores/baselines.ts.)
 */
export async function findBaselineRun(
  database: Database,
  projectId: string,
  taskId: string,
): Promise<{ tokens: number; costUsd: number | null; runs: number } | null> {
  const { baselineRun } = await currentBaseline(database, projectId, taskId, null);
  if (baselineRun === null) return null;
  return { tokens: baselineRun.tokens ?? 0, costUsd: baselineRun.costUsd, runs: baselineRun.runs };
}
