/**
 * CRUD for the scoring configuration of a project: prices, agent contracts,
 * handoff contracts, milestone sets, configured baselines, project settings.
 * Every function is scoped by project id; ids are random UUIDs. A duplicate
 * scope (same model, same agent and service, ...) throws PermanentError("conflict").
 */
import { randomUUID } from "node:crypto";
import { PermanentError, type Milestone } from "@crux/core";
import { and, asc, eq, sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import type { Database } from "../client.ts";
import { agentContracts, baselines, handoffContracts, milestoneSets, prices, projectSettings } from "../schema/config.ts";

export interface PriceInput {
  model: string;
  inputPerMTok: number;
  outputPerMTok: number;
  cachedInputPerMTok: number | null;
}
export interface AgentContractInput {
  serviceName: string | null;
  agent: string;
  role: string;
  allowedTools: string[] | null;
  forbiddenTools: string[] | null;
  isVerifier: boolean;
  completionCondition: unknown;
}
export interface HandoffContractInput {
  serviceName: string | null;
  from: string;
  to: string;
  jsonSchema: unknown;
  requiredConstraints: string[] | null;
}
export interface MilestoneSetInput {
  serviceName: string | null;
  name: string;
  /** Checks are JSONata expressions over the normalized trace view. */
  milestones: Milestone<string>[];
}
export interface BaselineInput {
  taskId: string | null;
  serviceName: string | null;
  tokens: number | null;
  costUsd: number | null;
}

export type Stored<T> = T & { id: string; createdAt: Date; updatedAt: Date };

export interface ConfigRepository<I> {
  list(database: Database, projectId: string): Promise<Stored<I>[]>;
  get(database: Database, projectId: string, id: string): Promise<Stored<I> | null>;
  create(database: Database, projectId: string, input: I): Promise<Stored<I>>;
  /** Replaces every field; null if the id is not the project's. */
  replace(database: Database, projectId: string, id: string, input: I): Promise<Stored<I> | null>;
  /** False if the id is not the project's. */
  remove(database: Database, projectId: string, id: string): Promise<boolean>;
}

/** Postgres unique_violation, whichever driver (drizzle wraps the driver error in `cause`). */
function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === "23505") return true;
  }
  return false;
}

async function conflictAware<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (isUniqueViolation(err)) throw new PermanentError("conflict", `${what} already exists for this scope`);
    throw err;
  }
}

// The table is one of the config tables above: each has id, project_id, created_at, updated_at.
type ConfigTable = PgTable & { id: never; projectId: never; createdAt: never };

function repository<I, R extends { id: string; createdAt: Date; updatedAt: Date }>(
  what: string,
  table: ConfigTable,
  toColumns: (input: I) => Record<string, unknown>,
  fromRow: (row: R) => I,
): ConfigRepository<I> {
  // drizzle's builders are not generic over tables; the casts stay inside this helper.
  /* eslint-disable @typescript-eslint/no-explicit-any */
  const t = table as any;
  const view = (row: R): Stored<I> => ({ ...fromRow(row), id: row.id, createdAt: row.createdAt, updatedAt: row.updatedAt });
  return {
    async list(database, projectId) {
      const rows = (await (database.db as any).select().from(t).where(eq(t.projectId, projectId)).orderBy(asc(t.createdAt), asc(t.id)).limit(10_000)) as R[];
      return rows.map(view);
    },
    async get(database, projectId, id) {
      const rows = (await (database.db as any)
        .select()
        .from(t)
        .where(and(eq(t.projectId, projectId), eq(t.id, id)))
        .limit(1)) as R[];
      return rows[0] ? view(rows[0]) : null;
    },
    async create(database, projectId, input) {
      return conflictAware(what, async () => {
        const rows = (await (database.db as any)
          .insert(t)
          .values({ id: randomUUID(), projectId, ...toColumns(input) })
          .returning()) as R[];
        return view(rows[0] as R);
      });
    },
    async replace(database, projectId, id, input) {
      return conflictAware(what, async () => {
        const rows = (await (database.db as any)
          .update(t)
          .set({ ...toColumns(input), updatedAt: sql`now()` })
          .where(and(eq(t.projectId, projectId), eq(t.id, id)))
          .returning()) as R[];
        return rows[0] ? view(rows[0]) : null;
      });
    },
    async remove(database, projectId, id) {
      const rows = (await (database.db as any)
        .delete(t)
        .where(and(eq(t.projectId, projectId), eq(t.id, id)))
        .returning({ id: t.id })) as unknown[];
      return rows.length > 0;
    },
  };
  /* eslint-enable @typescript-eslint/no-explicit-any */
}

export const priceRepository = repository<PriceInput, typeof prices.$inferSelect>(
  "a price for this model",
  prices as unknown as ConfigTable,
  (i) => ({ model: i.model.trim().toLowerCase(), inputPerMTok: i.inputPerMTok, outputPerMTok: i.outputPerMTok, cachedInputPerMTok: i.cachedInputPerMTok }),
  (r) => ({ model: r.model, inputPerMTok: r.inputPerMTok, outputPerMTok: r.outputPerMTok, cachedInputPerMTok: r.cachedInputPerMTok }),
);

export const agentContractRepository = repository<AgentContractInput, typeof agentContracts.$inferSelect>(
  "a contract for this agent",
  agentContracts as unknown as ConfigTable,
  (i) => ({
    serviceName: i.serviceName,
    agent: i.agent,
    role: i.role,
    allowedTools: i.allowedTools,
    forbiddenTools: i.forbiddenTools,
    isVerifier: i.isVerifier,
    completionCondition: i.completionCondition ?? null,
  }),
  (r) => ({
    serviceName: r.serviceName,
    agent: r.agent,
    role: r.role,
    allowedTools: r.allowedTools,
    forbiddenTools: r.forbiddenTools,
    isVerifier: r.isVerifier,
    completionCondition: r.completionCondition ?? null,
  }),
);

export const handoffContractRepository = repository<HandoffContractInput, typeof handoffContracts.$inferSelect>(
  "a contract for this handoff",
  handoffContracts as unknown as ConfigTable,
  (i) => ({ serviceName: i.serviceName, fromAgent: i.from, toAgent: i.to, jsonSchema: i.jsonSchema ?? null, requiredConstraints: i.requiredConstraints }),
  (r) => ({ serviceName: r.serviceName, from: r.fromAgent, to: r.toAgent, jsonSchema: r.jsonSchema ?? null, requiredConstraints: r.requiredConstraints }),
);

export const milestoneSetRepository = repository<MilestoneSetInput, typeof milestoneSets.$inferSelect>(
  "a milestone set for this service",
  milestoneSets as unknown as ConfigTable,
  (i) => ({ serviceName: i.serviceName, name: i.name, milestones: i.milestones }),
  (r) => ({ serviceName: r.serviceName, name: r.name, milestones: r.milestones as Milestone<string>[] }),
);

export const baselineRepository = repository<BaselineInput, typeof baselines.$inferSelect>(
  "a baseline for this task and service",
  baselines as unknown as ConfigTable,
  (i) => ({ taskId: i.taskId, serviceName: i.serviceName, tokens: i.tokens, costUsd: i.costUsd }),
  (r) => ({ taskId: r.taskId, serviceName: r.serviceName, tokens: r.tokens, costUsd: r.costUsd }),
);

export interface ProjectSettings {
  coordinationWeights: { redundancy: number; ignoredHandoffs: number; roleViolations: number } | null;
  repetitionK: number | null;
}

export async function getProjectSettings(database: Database, projectId: string): Promise<ProjectSettings> {
  const [row] = await database.db.select().from(projectSettings).where(eq(projectSettings.projectId, projectId)).limit(1);
  return {
    coordinationWeights: (row?.coordinationWeights as ProjectSettings["coordinationWeights"] | undefined) ?? null,
    repetitionK: row?.repetitionK ?? null,
  };
}

export async function putProjectSettings(database: Database, projectId: string, settings: ProjectSettings): Promise<ProjectSettings> {
  await database.db
    .insert(projectSettings)
    .values({ projectId, coordinationWeights: settings.coordinationWeights, repetitionK: settings.repetitionK })
    .onConflictDoUpdate({
      target: projectSettings.projectId,
      set: { coordinationWeights: settings.coordinationWeights, repetitionK: settings.repetitionK, updatedAt: sql`now()` },
    });
  return settings;
}
