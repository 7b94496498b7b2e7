import { z } from "zod";
import { envBoolean, envInt, envPort, queuePrefixSetting } from "@crux/config";

/** Receiver settings, shared by its own entry point and the all-in-one process. */
export const receiverConfigSchema = z.object({
  /** Listen address; unset: 0.0.0.0 with auth on, 127.0.0.1 with auth off (bindHostOf). */
  CRUX_HOST: z.string().optional(),
  CRUX_OTLP_HTTP_PORT: envPort(4318),
  CRUX_OTLP_GRPC_PORT: envPort(4317),
  /** Max request size, compressed and after decompression (OTLP recommends 64 MiB). */
  CRUX_MAX_BODY_BYTES: envInt(32 * 1024 * 1024, 1024),
  CRUX_MAX_ATTRIBUTES_PER_SPAN: envInt(1024, 1),
  CRUX_MAX_ATTRIBUTE_VALUE_LENGTH: envInt(32_768, 64),
  CRUX_MAX_VALUE_DEPTH: envInt(8, 1, 64),
  CRUX_SETTLE_DELAY_MS: envInt(5_000, 0),
  /** A trace whose root span arrived with all its children settles after this shorter delay. */
  CRUX_SETTLE_ROOT_DELAY_MS: envInt(1_000, 0),
  CRUX_MAX_QUEUE_DEPTH: envInt(100_000, 0),
  /** Export requests at once, from their headers until their settle enqueue is done; past it 429 + Retry-After. */
  CRUX_MAX_INFLIGHT_REQUESTS: envInt(16, 1),
  /**
   * Request bytes in flight at once (as received plus decompressed); past it exports get 429 +
   * Retry-After, before their body is read when they declare a Content-Length. Decoding costs
   * several times the body in heap, so this bounds memory where a request count cannot.
   */
  CRUX_MAX_INFLIGHT_BYTES: envInt(256 * 1024 * 1024, 1024),
  CRUX_DEFAULT_PROJECT: z.string().default("default"),
  /** Prepare the ingest statement by name on Postgres; false behind a pooler that cannot keep it. */
  CRUX_PG_NAMED_STATEMENTS: envBoolean(true),
});
export type ReceiverConfig = z.infer<typeof receiverConfigSchema>;

/** Production entry point: Postgres and Redis are required, auth is on unless turned off. */
export const receiverMainConfigSchema = receiverConfigSchema.extend({
  DATABASE_URL: z.string().url(),
  REDIS_URL: z.string().url(),
  CRUX_QUEUE_PREFIX: queuePrefixSetting,
  CRUX_AUTH: envBoolean(true),
  /** Where the REST API listens, only to point /api/ requests sent to the OTLP port there. */
  CRUX_API_PORT: envPort(0).transform((p) => (p === 0 ? undefined : p)),
  CRUX_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});
