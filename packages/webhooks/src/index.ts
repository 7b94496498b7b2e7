export { generateWebhookSecret, signWebhook, verifyWebhook, type SignedHeaders, type VerifyResult } from "./signing.ts";
export { deliverWebhook, type DeliveryAttempt, type DeliveryOptions, type DeliveryRequest, type FailureKind } from "./deliver.ts";
export { decideRetry, defaultRetryPolicy, isRetryable, parseRetryAfter, type RetryDecision, type RetryPolicy } from "./retry.ts";
export { slackBody, type SlackBlock, type SlackBody, type WebhookEvent } from "./slack.ts";
export { alertEventBody, deliveryBody, metricsQueryUrl, testEventBody, type AlertEventBody, type AlertEventInput } from "./events.ts";
