/**
 * /runners (docs/experiments.md §8): a project's endpoints that run its system
 * for one task. Signed like webhooks (the secret is in the create answer
 * only); a literal address the operator does not allow is refused when written, and every
 * address is checked again at connect time (@crux/outbound).
 */
import { ConfigId, PageQuery, Runner, RunnerBody, RunnerList, RunnerWithSecret } from "@crux/contracts";
import { createRunner, deleteRunner, getRunner, listRunners, webhookSecretForStorage, type Database, type SecretBox, type StoredRunner } from "@crux/db";
import type { PrivateTargets } from "@crux/outbound";
import { generateWebhookSecret } from "@crux/webhooks";
import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ApiError, ErrorBody } from "../errors.ts";
import { assertReachable } from "./webhooks.route.ts";

const IdParams = z.object({ id: ConfigId });
const errors = { 400: ErrorBody, 401: ErrorBody };

function runnerView(r: StoredRunner): z.infer<typeof Runner> {
  return {
    id: r.id,
    name: r.name,
    url: r.url,
    allowPrivateTargets: r.allowPrivateTargets,
    secretPrefix: r.secretPrefix,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

export function runnersRoutes(deps: {
  database: Database;
  secretBox: SecretBox | null;
  /** What the operator lets outbound requests reach (CRUX_ALLOW_PRIVATE_TARGETS). */
  privateTargets: PrivateTargets;
}): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();
    const db = deps.database;
    r.get(
      "/runners",
      { schema: { summary: "List runners (without their secrets)", tags: ["experiments"], querystring: PageQuery, response: { 200: RunnerList, ...errors } } },
      async (req) => {
        const page = await listRunners(db, req.projectId, req.query);
        return { items: page.items.map(runnerView), nextCursor: page.nextCursor };
      },
    );
    r.post(
      "/runners",
      {
        schema: {
          summary: "Register a runner; the answer holds its signing secret, shown only once",
          tags: ["experiments"],
          body: RunnerBody,
          response: { 201: RunnerWithSecret, ...errors },
        },
      },
      async (req, reply) => {
        assertReachable(req.body, deps.privateTargets);
        const secret = generateWebhookSecret();
        const runner = await createRunner(db, req.projectId, req.body, webhookSecretForStorage(secret, deps.secretBox));
        return reply.code(201).send({ ...runnerView(runner), secret });
      },
    );
    r.get(
      "/runners/:id",
      { schema: { summary: "One runner", tags: ["experiments"], params: IdParams, response: { 200: Runner, ...errors, 404: ErrorBody } } },
      async (req) => {
        const runner = await getRunner(db, req.projectId, req.params.id);
        if (!runner) throw new ApiError("not_found", `runner ${req.params.id} not found`);
        return runnerView(runner);
      },
    );
    r.delete(
      "/runners/:id",
      {
        schema: {
          summary: "Delete a runner; runs not sent yet fail",
          tags: ["experiments"],
          params: IdParams,
          response: { 204: z.null(), ...errors, 404: ErrorBody },
        },
      },
      async (req, reply) => {
        if (!(await deleteRunner(db, req.projectId, req.params.id))) throw new ApiError("not_found", `runner ${req.params.id} not found`);
        return reply.code(204).send(null);
      },
    );
  };
}
