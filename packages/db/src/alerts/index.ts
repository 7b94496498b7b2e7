export {
  createAlertRule,
  getAlertRule,
  replaceAlertRule,
  deleteAlertRule,
  listAlertRules,
  listEnabledAlertRules,
  markAlertRuleEvaluated,
  recordAlertTransition,
  type AlertRuleInput,
  type StoredAlertRule,
  type StoredAlertEvent,
  type AlertTransition,
} from "./rules.repository.ts";
export { listAlertEvents } from "./events.query.ts";
export {
  createWebhook,
  getWebhook,
  getWebhookForDelivery,
  replaceWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  listWebhooks,
  type WebhookInput,
  type StoredWebhook,
  type StoredSecret,
} from "./webhooks.repository.ts";
export {
  createDelivery,
  getDelivery,
  getDeliveryWithAttempts,
  recordDeliveryAttempt,
  retryDelivery,
  listDueDeliveries,
  listDeliveries,
  type DeliveryStatus,
  type StoredDelivery,
  type StoredDeliveryAttempt,
  type AttemptOutcome,
} from "./deliveries.repository.ts";
export { readAlertMetric, exampleTraceIds } from "./metrics.query.ts";
export { openWebhookSecret, SecretUnreadableError, webhookSecretForStorage } from "./webhook-secret.ts";
