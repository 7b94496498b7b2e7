/**
 * /webhooks (CRUD; the signing secret is in the answers of create and
 * rotate-secret only), their deliveries with every attempt, a manual retry
 * and a test event. Sends happen in the worker (webhook.deliver); a route
 * only stores the delivery and enqueues it (without a queue, or with it down,
 * the worker's next alerts.evaluate tick enqueues what is pending).
 */
import { randomUUID } from "node:crypto";
import { ConfigId, DeliveriesQuery, Delivery, DeliveryList, PageQuery, Webhook, WebhookBody, WebhookList, WebhookWithSecret } from "@crux/contracts";
import {
  createDelivery,
  createWebhook,
  deleteWebhook,
  getDeliveryWithAttempts,
  getWebhook,
  listDeliveries,
  listWebhooks,
  replaceWebhook,
  retryDelivery,
  rotateWebhookSecret,
  type Database,
  type StoredDelivery,
  type StoredDeliveryAttempt,
  type StoredWebhook,
  type SecretBox,
  webhookSecretForStorage,
} from "@crux/db";
import type { JobQueue } from "@crux/queue";
import type { Logger } from "@crux/runtime";
import { literalTargetProblem, type PrivateTargets } from "@crux/outbound";
import { deliveryBody, generateWebhookSecret, testEventBody } from "@crux/webhooks";
import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ApiError, ErrorBody } from "../errors.ts";

const IdParams = z.object({ id: ConfigId });
const errors = { 400: ErrorBody, 401: ErrorBody };

function webhookView(w: StoredWebhook): z.infer<typeof Webhook> {
  return {
    id: w.id,
    url: w.url,
    description: w.description,
    enabled: w.enabled,
    slack: w.slack,
    allowPrivateTargets: w.allowPrivateTargets,
    secretPrefix: w.secretPrefix,
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
  };
}

function deliveryView(d: StoredDelivery & { attempts: StoredDeliveryAttempt[] }): z.infer<typeof Delivery> {
  return {
    id: d.id,
    webhookId: d.webhookId,
    eventId: d.eventId,
    eventType: d.eventType,
    status: d.status,
    attempts: d.attempts.map((a) => ({ ...a, startedAt: a.startedAt.toISOString() })),
    nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
    lastError: d.lastError,
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
  };
}

/**
 * A literal address that may not be reached is refused when the webhook is written, not only at its
 * first delivery; a name can only be checked when it is resolved, at connect time (@crux/outbound).
 * allowPrivateTargets asks for what the operator allows (CRUX_ALLOW_PRIVATE_TARGETS), never more.
 */
export function assertReachable(body: { url: string; allowPrivateTargets: boolean }, operatorAllows: PrivateTargets): void {
  if (body.allowPrivateTargets && operatorAllows === "none") {
    throw new ApiError("invalid_request", "allowPrivateTargets: this service allows no private targets (CRUX_ALLOW_PRIVATE_TARGETS=none)");
  }
  const why = literalTargetProblem(body.url, body.allowPrivateTargets ? operatorAllows : "none");
  if (why)
    throw new ApiError("invalid_request", `url: ${why}${body.allowPrivateTargets ? "" : "; allowPrivateTargets asks for the targets this service allows"}`);
}

export function webhooksRoutes(deps: {
  database: Database;
  queue?: JobQueue | undefined;
  log: Logger;
  /** Seals the signing secrets (CRUX_SECRET_KEY), or null to store them as they are. */
  secretBox: SecretBox | null;
  /** How long a rotated-out secret still signs deliveries, beside the new one (CRUX_WEBHOOK_SECRET_OVERLAP_MS). */
  secretOverlapMs: number;
  /** What the operator lets outbound requests reach (CRUX_ALLOW_PRIVATE_TARGETS). */
  privateTargets: PrivateTargets;
}): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();
    const db = deps.database;
    const notFound = (what: string, id: string) => new ApiError("not_found", `${what} ${id} not found`);

    /** True when the job is in the queue; false leaves it to the worker's next evaluation tick. */
    async function enqueue(deliveryId: string): Promise<boolean> {
      if (!deps.queue) return false;
      try {
        await deps.queue.enqueue("webhook.deliver", { deliveryId });
        return true;
      } catch (err) {
        deps.log.warn(
          { deliveryId, error: err instanceof Error ? err.message : String(err) },
          "webhook delivery not enqueued; the worker's next tick sends it",
        );
        return false;
      }
    }

    r.get(
      "/webhooks",
      { schema: { summary: "List webhooks (without their secrets)", tags: ["webhooks"], querystring: PageQuery, response: { 200: WebhookList, ...errors } } },
      async (req) => {
        const page = await listWebhooks(db, req.projectId, req.query);
        return { items: page.items.map(webhookView), nextCursor: page.nextCursor };
      },
    );
    r.post(
      "/webhooks",
      {
        schema: {
          summary: "Register a webhook; the answer holds its signing secret, shown only once",
          tags: ["webhooks"],
          body: WebhookBody,
          response: { 201: WebhookWithSecret, ...errors },
        },
      },
      async (req, reply) => {
        assertReachable(req.body, deps.privateTargets);
        const secret = generateWebhookSecret();
        const webhook = await createWebhook(db, req.projectId, req.body, webhookSecretForStorage(secret, deps.secretBox));
        return reply.code(201).send({ ...webhookView(webhook), secret });
      },
    );
    r.get(
      "/webhooks/:id",
      { schema: { summary: "One webhook (without its secret)", tags: ["webhooks"], params: IdParams, response: { 200: Webhook, ...errors, 404: ErrorBody } } },
      async (req) => {
        const webhook = await getWebhook(db, req.projectId, req.params.id);
        if (!webhook) throw notFound("webhook", req.params.id);
        return webhookView(webhook);
      },
    );
    r.put(
      "/webhooks/:id",
      {
        schema: {
          summary: "Replace a webhook's settings (the secret is kept; rotate it with rotate-secret)",
          tags: ["webhooks"],
          params: IdParams,
          body: WebhookBody,
          response: { 200: Webhook, ...errors, 404: ErrorBody },
        },
      },
      async (req) => {
        assertReachable(req.body, deps.privateTargets);
        const webhook = await replaceWebhook(db, req.projectId, req.params.id, req.body);
        if (!webhook) throw notFound("webhook", req.params.id);
        return webhookView(webhook);
      },
    );
    r.delete(
      "/webhooks/:id",
      {
        schema: {
          summary: "Delete a webhook and its deliveries",
          tags: ["webhooks"],
          params: IdParams,
          response: { 204: z.null(), ...errors, 404: ErrorBody },
        },
      },
      async (req, reply) => {
        if (!(await deleteWebhook(db, req.projectId, req.params.id))) throw notFound("webhook", req.params.id);
        return reply.code(204).send(null);
      },
    );
    r.post(
      "/webhooks/:id/rotate-secret",
      {
        schema: {
          summary:
            "Replace the signing secret; the answer holds the new one, shown only once. Deliveries are signed with it and, for CRUX_WEBHOOK_SECRET_OVERLAP_MS (default 24 h), with the old one too (two signatures in webhook-signature), so receivers can switch over without failing a delivery",
          tags: ["webhooks"],
          params: IdParams,
          response: { 200: WebhookWithSecret, ...errors, 404: ErrorBody },
        },
      },
      async (req) => {
        const secret = generateWebhookSecret();
        const webhook = await rotateWebhookSecret(db, req.projectId, req.params.id, webhookSecretForStorage(secret, deps.secretBox), deps.secretOverlapMs);
        if (!webhook) throw notFound("webhook", req.params.id);
        return { ...webhookView(webhook), secret };
      },
    );
    r.post(
      "/webhooks/:id/test",
      {
        schema: {
          summary: "Send a webhook.test event; the answer is the delivery, whose attempts GET /deliveries shows",
          tags: ["webhooks"],
          params: IdParams,
          response: { 202: Delivery, ...errors, 404: ErrorBody },
        },
      },
      async (req, reply) => {
        const webhook = await getWebhook(db, req.projectId, req.params.id);
        if (!webhook) throw notFound("webhook", req.params.id);
        const body = testEventBody(randomUUID(), { id: webhook.id, url: webhook.url }, new Date());
        const delivery = await createDelivery(db, {
          projectId: req.projectId,
          webhookId: webhook.id,
          eventId: body.id,
          eventType: body.type,
          payload: deliveryBody(body, webhook.slack),
        });
        await enqueue(delivery.id);
        return reply.code(202).send(deliveryView({ ...delivery, attempts: [] }));
      },
    );
    r.get(
      "/webhooks/:id/deliveries",
      {
        schema: {
          summary: "Deliveries of a webhook, newest first, each with every attempt",
          tags: ["webhooks"],
          params: IdParams,
          querystring: DeliveriesQuery,
          response: { 200: DeliveryList, ...errors, 404: ErrorBody },
        },
      },
      async (req) => {
        if (!(await getWebhook(db, req.projectId, req.params.id))) throw notFound("webhook", req.params.id);
        const page = await listDeliveries(db, req.projectId, req.params.id, req.query);
        return { items: page.items.map(deliveryView), nextCursor: page.nextCursor };
      },
    );
    r.post(
      "/deliveries/:id/retry",
      {
        schema: {
          summary: "Send a delivered or failed delivery again, with a fresh round of attempts (same event id)",
          tags: ["webhooks"],
          params: IdParams,
          response: { 202: Delivery, ...errors, 404: ErrorBody, 409: ErrorBody },
        },
      },
      async (req, reply) => {
        const delivery = await retryDelivery(db, req.projectId, req.params.id);
        if (!delivery) throw notFound("delivery", req.params.id);
        await enqueue(delivery.id);
        const withAttempts = await getDeliveryWithAttempts(db, req.projectId, delivery.id);
        return reply.code(202).send(deliveryView(withAttempts ?? { ...delivery, attempts: [] }));
      },
    );
  };
}
