/**
 * webhook.deliver (unique per delivery id): one signed POST per run, recorded
 * as an attempt with the delivery's new status in one transaction. A retry
 * (network error, timeout, 5xx, 429) is this same job deferred by the retry
 * policy's wait (full-jitter backoff, or the receiver's Retry-After), so the
 * delivery keeps its key and is never sent twice at once; after the last
 * attempt, or on an answer that will not change (4xx, redirect, a refused
 * private target), the delivery is failed. The event id is the webhook-id
 * header of every attempt: at-least-once, deduplicated by the receiver.
 */
import { getDelivery, getWebhookForDelivery, openWebhookSecret, recordDeliveryAttempt, SecretUnreadableError, type Database, type SecretBox } from "@crux/db";
import { JobDeferral, type Payload } from "@crux/queue";
import type { Logger } from "@crux/runtime";
import type { PrivateTargets, Resolver } from "@crux/outbound";
import { decideRetry, deliverWebhook, type RetryPolicy } from "@crux/webhooks";

export interface WebhookDeliverDeps {
  database: Database;
  log: Logger;
  retryPolicy: RetryPolicy;
  timeoutMs: number;
  /** Opens the signing secrets the API sealed (CRUX_SECRET_KEY), or null. */
  secretBox: SecretBox | null;
  now?: () => number;
  /** [0, 1) for the backoff jitter. */
  random?: () => number;
  /** Non-public targets the operator allows (CRUX_ALLOW_PRIVATE_TARGETS); a webhook reaches them only with allowPrivateTargets. */
  privateTargets: PrivateTargets;
  /** Hostname resolution (tests point a name at an address); the address check runs on what it returns. */
  resolver?: Resolver;
  /** Told what followed each recorded attempt (the worker's metrics). */
  onAttempt?: (result: "delivered" | "retry" | "failed") => void;
}

/** A run this close to its due time sends at once rather than deferring for a few ms. */
const EARLY_TOLERANCE_MS = 50;

export function createWebhookDeliverProcessor(deps: WebhookDeliverDeps) {
  const now = deps.now ?? Date.now;
  const random = deps.random ?? Math.random;

  return async function deliver(payload: Payload<"webhook.deliver">): Promise<void> {
    const delivery = await getDelivery(deps.database, payload.deliveryId);
    if (delivery === null || delivery.status !== "pending") {
      deps.log.debug({ ...payload, status: delivery?.status ?? "unknown" }, "webhook delivery: nothing to send");
      return;
    }
    const dueInMs = (delivery.nextAttemptAt?.getTime() ?? 0) - now();
    if (dueInMs > EARLY_TOLERANCE_MS) throw new JobDeferral(dueInMs, "webhook delivery not due yet");
    // Deleting a webhook deletes its deliveries (cascade), so it exists here unless deleted just now.
    const webhook = await getWebhookForDelivery(deps.database, delivery.webhookId);
    if (webhook === null) return;

    const startedAt = new Date(now());
    let secret: string[];
    try {
      // During a rotation's overlap the old secret signs too, so receivers not yet updated still verify.
      secret = [webhook.secret, ...(webhook.previousSecret === null ? [] : [webhook.previousSecret])].map((s) => openWebhookSecret(s, deps.secretBox));
    } catch (err) {
      if (!(err instanceof SecretUnreadableError)) throw err;
      // Nothing was sent: failed until the operator sets the right key and the delivery is retried by hand.
      const attempt = { startedAt, status: null, ok: false, failureKind: "secret_unreadable", message: err.message, durationMs: 0, responseExcerpt: "" };
      await recordDeliveryAttempt(deps.database, delivery, { attempt, status: "failed", nextAttemptAt: null, lastError: `secret_unreadable: ${err.message}` });
      deps.onAttempt?.("failed");
      deps.log.error({ ...payload, webhookId: webhook.id, error: err.message }, "webhook delivery failed: its signing secret cannot be read");
      return;
    }
    const attempt = await deliverWebhook(
      { url: webhook.url, secret, id: delivery.eventId, payload: delivery.payload, timestamp: startedAt },
      {
        timeoutMs: deps.timeoutMs,
        privateTargets: webhook.allowPrivateTargets ? deps.privateTargets : "none",
        now,
        ...(deps.resolver ? { resolver: deps.resolver } : {}),
      },
    );
    const made = delivery.roundAttempts + 1;
    const decision = decideRetry(attempt, made, deps.retryPolicy, random);
    const failure = attempt.ok ? null : `${attempt.failure.kind}: ${attempt.failure.message}`;
    const recorded = await recordDeliveryAttempt(deps.database, delivery, {
      attempt: {
        startedAt,
        status: attempt.status,
        ok: attempt.ok,
        failureKind: attempt.ok ? null : attempt.failure.kind,
        message: attempt.ok ? null : attempt.failure.message,
        durationMs: Math.round(attempt.durationMs * 10) / 10,
        responseExcerpt: attempt.responseExcerpt.slice(0, 2_048),
      },
      status: decision.action === "delivered" ? "delivered" : decision.action === "retry" ? "pending" : "failed",
      nextAttemptAt: decision.action === "retry" ? new Date(now() + decision.delayMs) : null,
      lastError: failure,
    });
    if (!recorded) {
      deps.log.debug(payload, "webhook delivery changed while sending (a manual retry); its new round decides");
      return;
    }
    deps.onAttempt?.(decision.action);
    const context = { ...payload, webhookId: webhook.id, eventId: delivery.eventId, attempt: made, status: attempt.status };
    switch (decision.action) {
      case "delivered":
        deps.log.info(context, "webhook delivered");
        return;
      case "failed":
        deps.log.warn({ ...context, error: failure, reason: decision.reason }, "webhook delivery failed");
        return;
      case "retry":
        deps.log.info({ ...context, error: failure, retryInMs: decision.delayMs }, "webhook attempt failed; will retry");
        throw new JobDeferral(decision.delayMs, "webhook retry");
    }
  };
}
