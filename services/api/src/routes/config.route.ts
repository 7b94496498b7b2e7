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
  type HandoffContractInput,
  type Database,
  type Stored,
} from "@crux/db";
import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  AgentContractBody,
  BaselineBody,
  ConfigId,
  ConfigMeta,
  EffectivePrice,
  HandoffContractBody,
  MilestoneSetBody,
  PriceBody,
  Settings,
} from "@crux/contracts";
import { ApiError, ErrorBody } from "../errors.ts";
import { assertValidJsonSchema, assertValidJsonata, assertValidMilestones } from "./config.validation.ts";

const IdParams = z.object({ id: ConfigId });
const errors = { 400: ErrorBody, 401: ErrorBody };

/**
 * Handoff contracts in the API's handoff vocabulary (sender → receiver); the repository keeps its
 * own field names (from, to).
 */
const handoffContracts: ConfigRepository<HandoffContractBody> = (() => {
  const repo = handoffContractRepository;
  const toInput = ({ sender, receiver, ...rest }: HandoffContractBody): HandoffContractInput => ({ ...rest, from: sender, to: receiver });
  const fromStored = <R extends HandoffContractInput>({ from, to, ...rest }: R): Omit<R, "from" | "to"> & { sender: string; receiver: string } => ({
    ...rest,
    sender: from,
    receiver: to,
  });
  return {
    list: async (database, projectId) => (await repo.list(database, projectId)).map(fromStored),
    get: async (database, projectId, id) => {
      const row = await repo.get(database, projectId, id);
      return row && fromStored(row);
    },
    create: async (database, projectId, input) => fromStored(await repo.create(database, projectId, toInput(input))),
    replace: async (database, projectId, id, input) => {
      const row = await repo.replace(database, projectId, id, toInput(input));
      return row && fromStored(row);
    },
    remove: (database, projectId, id) => repo.remove(database, projectId, id),
  };
})();

/** "a price", "an agent contract": the article the resource's name takes in summaries. */
function withArticle(noun: string): string {
  return `${/^[aeiou]/i.test(noun) ? "an" : "a"} ${noun}`;
}

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
    const Dto: z.ZodType = z.intersection(res.body, ConfigMeta);
    const Body: z.ZodType = res.body;
    const notFound = (id: string) => new ApiError("not_found", `${res.tag} ${id} not found`);

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
      { schema: { summary: `Create ${withArticle(res.tag)}`, tags: ["config"], body: Body, response: { 201: Dto, ...errors, 409: ErrorBody } } },
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
          summary: `Replace ${withArticle(res.tag)}`,
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
      { schema: { summary: `Delete ${withArticle(res.tag)}`, tags: ["config"], params: IdParams, response: { 204: z.null(), ...errors, 404: ErrorBody } } },
      async (req, reply) => {
        if (!(await res.repo.remove(database, req.projectId, req.params.id))) throw notFound(req.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}

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
          item: EffectivePrice,
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
        repo: handoffContracts,
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
