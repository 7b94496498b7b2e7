/**
 * CRUD for the scoring configuration: /prices, /agent-contracts,
 * /handoff-contracts, /milestone-sets, /baselines (GET list, POST 201,
 * GET/PUT/DELETE /:id), and GET/PUT /settings. Changes apply to traces scored
 * afterwards.
 */
import {
  agentContractRepository,
  baselineRepository,
  getProjectSettings,
  handoffContractRepository,
  listEffectivePrices,
  milestoneSetRepository,
  priceRepository,
  putProjectSettings,
  type ConfigRepository,
  type Database,
  type Stored,
} from "@crux/db";
import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ApiError, ErrorBody } from "../errors.ts";
import { JsonValue } from "../validation.ts";
import { assertValidJsonSchema, assertValidJsonata, assertValidMilestones } from "./config.validation.ts";

const noNul = { message: "must not contain a NUL character (U+0000)" };
const Name = z
  .string()
  .trim()
  .min(1)
  .max(256)
  .refine((s) => !s.includes("\u0000"), noNul);
const Expression = z
  .string()
  .min(1)
  .max(10_000)
  .refine((s) => !s.includes("\u0000"), noNul);
const ServiceName = Name.nullable().default(null).describe("null = every service of the project; a service's row wins over the project-wide one");
const Money = z.number().finite().min(0);
const Tools = z.array(Name).max(500).nullable().default(null);

const PriceBody = z.object({
  model: Name.describe("Model id or id prefix; matched case-insensitively"),
  inputPerMTok: Money,
  outputPerMTok: Money,
  cachedInputPerMTok: Money.nullable().default(null),
});
const AgentContractBody = z.object({
  serviceName: ServiceName,
  agent: Name.describe('Agent name, or "*" for any agent'),
  role: Name,
  allowedTools: Tools,
  forbiddenTools: Tools,
  isVerifier: z.boolean().default(false),
  completionCondition: Expression.nullable().default(null).describe("JSONata expression over the trace view"),
});
const HandoffContractBody = z.object({
  serviceName: ServiceName,
  from: Name,
  to: Name,
  jsonSchema: JsonValue.nullable().default(null).describe("JSON Schema the handoff payload must satisfy"),
  requiredConstraints: z
    .array(
      z
        .string()
        .min(1)
        .max(1000)
        .refine((s) => !s.includes("\u0000"), noNul),
    )
    .max(200)
    .nullable()
    .default(null),
});
const MilestoneSetBody = z.object({
  serviceName: ServiceName,
  name: Name,
  milestones: z
    .array(
      z.object({
        id: Name,
        weight: z.number().finite().min(0),
        check: Expression.describe("JSONata expression over the trace view"),
        requires: z.array(Name).max(100).optional(),
        required: z.boolean().optional(),
      }),
    )
    .min(1)
    .max(200),
});
const BaselineBody = z
  .object({
    taskId: Name.nullable().default(null),
    serviceName: Name.nullable().default(null),
    tokens: z.number().finite().positive().nullable().default(null),
    costUsd: z.number().finite().positive().nullable().default(null),
  })
  .refine((b) => b.taskId !== null || b.serviceName !== null, { message: "set taskId or serviceName", path: ["taskId"] })
  .refine((b) => b.tokens !== null || b.costUsd !== null, { message: "set tokens or costUsd", path: ["tokens"] });

const Meta = z.object({ id: z.string(), createdAt: z.string(), updatedAt: z.string() });
const IdParams = z.object({ id: z.uuid() });
const errors = { 400: ErrorBody, 401: ErrorBody };

function withMeta<T>(row: Stored<T>): T & { id: string; createdAt: string; updatedAt: string } {
  return { ...row, createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString() };
}

interface Resource<S extends z.ZodType> {
  path: string;
  tag: string;
  body: S;
  repo: ConfigRepository<z.infer<S>>;
  /** Extra write-time validation (throws ApiError 400). */
  check?: (input: z.infer<S>) => void;
  /** Replaces the list endpoint (prices list the defaults too). */
  list?: { describe: string; item: z.ZodType; load: (database: Database, projectId: string) => Promise<unknown[]> };
}

function crudRoutes<S extends z.ZodType>(database: Database, res: Resource<S>): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();
    // Output is the input shape (after defaults) plus meta. Typed as plain ZodType: the
    // handlers are generic over the resource, so their types are checked at the repository.
    const Dto: z.ZodType = z.intersection(res.body, Meta);
    const Body: z.ZodType = res.body;
    const notFound = (id: string) => new ApiError(404, "not_found", `${res.tag} ${id} not found`);

    const list = res.list;
    if (list) {
      r.get(
        res.path,
        {
          schema: {
            summary: `List ${res.tag}s`,
            description: list.describe,
            tags: ["config"],
            response: { 200: z.object({ items: z.array(list.item) }), ...errors },
          },
        },
        async (req) => ({ items: await list.load(database, req.projectId) }),
      );
    } else {
      r.get(
        res.path,
        { schema: { summary: `List ${res.tag}s`, tags: ["config"], response: { 200: z.object({ items: z.array(Dto) }), ...errors } } },
        async (req) => ({
          items: (await res.repo.list(database, req.projectId)).map(withMeta),
        }),
      );
    }
    r.get(
      `${res.path}/:id`,
      { schema: { summary: `One ${res.tag}`, tags: ["config"], params: IdParams, response: { 200: Dto, ...errors, 404: ErrorBody } } },
      async (req) => {
        const row = await res.repo.get(database, req.projectId, req.params.id);
        if (!row) throw notFound(req.params.id);
        return withMeta(row);
      },
    );
    r.post(
      res.path,
      { schema: { summary: `Create a ${res.tag}`, tags: ["config"], body: Body, response: { 201: Dto, ...errors, 409: ErrorBody } } },
      async (req, reply) => {
        const input = req.body as z.infer<S>;
        res.check?.(input);
        return reply.code(201).send(withMeta(await res.repo.create(database, req.projectId, input)));
      },
    );
    r.put(
      `${res.path}/:id`,
      {
        schema: {
          summary: `Replace a ${res.tag}`,
          tags: ["config"],
          params: IdParams,
          body: Body,
          response: { 200: Dto, ...errors, 404: ErrorBody, 409: ErrorBody },
        },
      },
      async (req) => {
        const input = req.body as z.infer<S>;
        res.check?.(input);
        const row = await res.repo.replace(database, req.projectId, req.params.id, input);
        if (!row) throw notFound(req.params.id);
        return withMeta(row);
      },
    );
    r.delete(
      `${res.path}/:id`,
      { schema: { summary: `Delete a ${res.tag}`, tags: ["config"], params: IdParams, response: { 204: z.null(), ...errors, 404: ErrorBody } } },
      async (req, reply) => {
        if (!(await res.repo.remove(database, req.projectId, req.params.id))) throw notFound(req.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}

const Settings = z.object({
  coordinationWeights: z
    .object({ redundancy: z.number().finite().min(0), ignoredHandoffs: z.number().finite().min(0), roleViolations: z.number().finite().min(0) })
    .refine((w) => w.redundancy + w.ignoredHandoffs + w.roleViolations > 0, { message: "at least one weight must be positive" })
    .nullable()
    .describe("Weights of Coord = 1 - Σ w_k p_k (normalized to sum to 1); null = equal"),
  repetitionK: z.number().int().min(2).max(100).nullable().describe("FM-1.3 step-repetition threshold; null = 3"),
});

export function configRoutes(deps: { database: Database }): FastifyPluginAsync {
  return async (app) => {
    const db = deps.database;
    await app.register(
      crudRoutes(db, {
        path: "/prices",
        tag: "price",
        body: PriceBody,
        repo: priceRepository,
        list: {
          describe:
            'Every price scoring applies, by model id: the seeded default list prices (`source: "default"`, no id) and the project\'s own (`source: "project"`, with id). A project price replaces the default of the same model id; deleting it brings the default back. Defaults cannot be edited in place: POST a price with the same model id.',
          item: PriceBody.extend({
            source: z.enum(["default", "project"]),
            id: z.string().nullable(),
            createdAt: z.string().nullable(),
            updatedAt: z.string().nullable(),
          }),
          load: async (database, projectId) =>
            (await listEffectivePrices(database, projectId)).map((p) => ({
              ...p,
              createdAt: p.createdAt?.toISOString() ?? null,
              updatedAt: p.updatedAt?.toISOString() ?? null,
            })),
        },
      }),
    );
    await app.register(
      crudRoutes(db, {
        path: "/agent-contracts",
        tag: "agent contract",
        body: AgentContractBody,
        repo: agentContractRepository as ConfigRepository<z.infer<typeof AgentContractBody>>,
        check: (c) => {
          if (c.completionCondition !== null) assertValidJsonata(c.completionCondition, "completionCondition");
        },
      }),
    );
    await app.register(
      crudRoutes(db, {
        path: "/handoff-contracts",
        tag: "handoff contract",
        body: HandoffContractBody,
        repo: handoffContractRepository,
        check: (c) => assertValidJsonSchema(c.jsonSchema, "jsonSchema"),
      }),
    );
    await app.register(
      crudRoutes(db, {
        path: "/milestone-sets",
        tag: "milestone set",
        body: MilestoneSetBody,
        repo: milestoneSetRepository as ConfigRepository<z.infer<typeof MilestoneSetBody>>,
        check: (s) => assertValidMilestones(s.milestones),
      }),
    );
    await app.register(crudRoutes(db, { path: "/baselines", tag: "baseline", body: BaselineBody, repo: baselineRepository }));

    const r = app.withTypeProvider<ZodTypeProvider>();
    r.get("/settings", { schema: { summary: "Scoring settings of the project", tags: ["config"], response: { 200: Settings, ...errors } } }, async (req) =>
      getProjectSettings(db, req.projectId),
    );
    r.put(
      "/settings",
      { schema: { summary: "Replace the scoring settings", tags: ["config"], body: Settings, response: { 200: Settings, ...errors } } },
      async (req) => putProjectSettings(db, req.projectId, req.body),
    );
  };
}
