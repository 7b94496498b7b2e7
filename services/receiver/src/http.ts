/**
 * OTLP/HTTP: POST /v1/traces with application/x-protobuf or application/json,
 * optionally gzip/deflate. Responses use the request's encoding; errors carry a
 * google.rpc.Status body (docs/conventions.md §2.4).
 *
 * Admission happens before the body is read: while the receiver is starting
 * (503), above the backlog ceiling (503), at the in-flight request limit
 * (429), and when the request's declared size would pass the in-flight byte
 * budget (429). A body without Content-Length is counted as it arrives, an
 * inflated body as it grows.
 */
import { Transform, type Readable } from "node:stream";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { encodeExportResponse, encodeRpcStatus, type OtlpFormat } from "@crux/otlp";
import { apiKeyFromHeaders, type Authenticator } from "@crux/auth";
import type { ByteBudget, ByteLease, IntakeGate } from "./admission.ts";
import { decompressBody, parseContentEncoding } from "./decompress.ts";
import { ThrottledError, classifyIngestError, httpStatusOf, type IngestFailure } from "./errors.ts";
import type { ExportAttempt, InFlightSlot, IngestPipeline } from "./ingest.ts";
import type { ExportReporter } from "./reporting.ts";

export interface HttpReceiverOptions {
  pipeline: IngestPipeline;
  authenticate: Authenticator;
  /** Max body size in bytes, compressed and decompressed. */
  maxBodyBytes: number;
  gate: IntakeGate;
  budget: ByteBudget;
  reporter: ExportReporter;
  /** Fastify logger options, or a pino logger instance. */
  logger?: boolean | object;
}

const CONTENT_TYPES: Record<string, OtlpFormat> = {
  "application/x-protobuf": "protobuf",
  "application/protobuf": "protobuf",
  "application/json": "json",
};
const MEDIA_TYPE: Record<OtlpFormat, string> = { protobuf: "application/x-protobuf", json: "application/json" };
// google.rpc.Code values, informative only (OTLP ignores Status.code).
const RPC_CODE: Record<IngestFailure["kind"], number> = {
  bad_request: 3,
  unauthenticated: 16,
  forbidden: 7,
  too_large: 8,
  unsupported_media_type: 3,
  throttled: 8,
  overloaded: 8,
  unavailable: 14,
};

function formatOfContentType(header: string | undefined): OtlpFormat | null {
  const base = (header ?? "").split(";")[0]!.trim().toLowerCase();
  return CONTENT_TYPES[base] ?? null;
}

/** What one export request has learned so far, for its report once answered. */
interface ExportContext {
  started: number;
  lease: ByteLease;
  slot?: InFlightSlot;
  attempt: ExportAttempt;
  failure?: IngestFailure;
  projectId?: string;
  error?: unknown;
}

export function buildHttpReceiver(opts: HttpReceiverOptions): FastifyInstance {
  const logger = opts.logger ?? false;
  const isInstance = typeof logger === "object" && typeof (logger as { child?: unknown }).child === "function";
  const serverOptions = { bodyLimit: opts.maxBodyBytes, requestTimeout: 60_000 };
  const app: FastifyInstance = isInstance
    ? (Fastify({ ...serverOptions, loggerInstance: logger as FastifyBaseLogger }) as unknown as FastifyInstance)
    : Fastify({ ...serverOptions, logger });
  const contexts = new WeakMap<FastifyRequest, ExportContext>();

  // Every body arrives as raw bytes; the route decides what it is.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => done(null, body));

  function fail(req: FastifyRequest, reply: FastifyReply, format: OtlpFormat, f: IngestFailure, error?: unknown) {
    const ctx = contexts.get(req);
    if (ctx) {
      ctx.failure = f;
      ctx.error = error;
    }
    if (f.retryAfterSeconds !== undefined) reply.header("retry-after", String(f.retryAfterSeconds));
    return reply
      .code(httpStatusOf(f))
      .header("content-type", MEDIA_TYPE[format])
      .send(Buffer.from(encodeRpcStatus(format, RPC_CODE[f.kind], f.message)));
  }

  app.route({
    method: "POST",
    url: "/v1/traces",
    onRequest: async (req, reply) => {
      const ctx: ExportContext = { started: performance.now(), lease: opts.budget.lease(), attempt: {} };
      contexts.set(req, ctx);
      reply.raw.once("close", () => {
        // Also when the client goes away mid-body. A slot handed to the pipeline stays until its enqueue is done.
        ctx.lease.release();
        ctx.slot?.release();
      });
      const format = formatOfContentType(req.headers["content-type"]) ?? "json";
      try {
        opts.gate.check();
        ctx.slot = opts.pipeline.admit();
      } catch (err) {
        fail(req, reply, format, classifyIngestError(err));
        return reply;
      }
      const declared = Number(req.headers["content-length"]);
      // Over the body limit: Fastify answers 413 without reading it.
      if (Number.isSafeInteger(declared) && declared <= opts.maxBodyBytes && !ctx.lease.tryGrow(declared)) {
        fail(req, reply, format, classifyIngestError(opts.budget.refusal()));
        return reply;
      }
    },
    preParsing: async (req, _reply, payload) => {
      const ctx = contexts.get(req);
      if (!ctx || req.headers["content-length"] !== undefined) return payload;
      return countedBody(payload, ctx.lease);
    },
    onResponse: async (req, reply) => {
      const ctx = contexts.get(req);
      if (!ctx) return;
      ctx.lease.release();
      ctx.slot?.release();
      opts.reporter.finished({
        transport: "http",
        status: reply.statusCode,
        durationSeconds: (performance.now() - ctx.started) / 1000,
        failure: ctx.failure,
        projectId: ctx.projectId,
        spans: ctx.attempt.spans,
        error: ctx.error,
      });
    },
    handler: async (req, reply) => {
      const ctx = contexts.get(req)!;
      const format = formatOfContentType(req.headers["content-type"]);
      if (!format) {
        // Collector behaviour: 415 with a plain explanation (we still send a Status, in JSON).
        return fail(req, reply, "json", {
          kind: "unsupported_media_type",
          reason: "content_type",
          message: `unsupported content type '${req.headers["content-type"] ?? ""}'; supported: application/x-protobuf, application/json`,
        });
      }
      let body: Buffer | null = null;
      try {
        const auth = await opts.authenticate(
          apiKeyFromHeaders((n) => headerValue(req.headers[n])),
          "ingest",
        );
        if (!auth.ok) return fail(req, reply, format, { kind: auth.failure, reason: auth.failure, message: auth.reason });
        ctx.projectId = auth.projectId;
        const encoding = parseContentEncoding(headerValue(req.headers["content-encoding"]));
        if (!encoding) {
          const message = `unsupported content encoding '${req.headers["content-encoding"]}'; supported: gzip, deflate, identity`;
          return fail(req, reply, format, { kind: "bad_request", reason: "content_encoding", message });
        }
        const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        body = await decompressBody(raw, encoding, opts.maxBodyBytes, ctx.lease);
        const outcome = await opts.pipeline.ingest(body, format, auth.projectId, ctx.attempt, ctx.slot);
        const partial =
          outcome.rejectedSpans > 0 || outcome.rejectionMessage ? { rejectedSpans: outcome.rejectedSpans, errorMessage: outcome.rejectionMessage } : undefined;
        return reply
          .code(200)
          .header("content-type", MEDIA_TYPE[format])
          .send(Buffer.from(encodeExportResponse(format, partial)));
      } catch (err) {
        const f = classifyIngestError(err);
        if (f.reason === "invalid_request" && format === "protobuf" && body && looksLikeJson(body)) {
          f.message = `the body looks like JSON, not protobuf: send OTLP/JSON with Content-Type: application/json (${f.message})`;
        }
        return fail(req, reply, format, f, err);
      }
    },
  });

  app.route({
    method: ["GET", "PUT", "DELETE", "PATCH"],
    url: "/v1/traces",
    handler: async (req, reply) =>
      reply
        .code(405)
        .header("allow", "POST")
        .send({ code: 5, message: `method ${req.method} not allowed, supported: [POST]` }),
  });

  // Fastify's own errors (body over the limit, aborted requests) in OTLP form.
  app.setErrorHandler((err: { statusCode?: number; message: string }, req, reply) => {
    const format = formatOfContentType(req.headers["content-type"]) ?? "json";
    if (err instanceof ThrottledError) return fail(req, reply, format, classifyIngestError(err));
    if (err.statusCode === 413)
      return fail(req, reply, format, { kind: "too_large", reason: "body_too_large", message: `request body is larger than ${opts.maxBodyBytes} bytes` });
    if (err.statusCode && err.statusCode < 500) return fail(req, reply, format, { kind: "bad_request", reason: "invalid_request", message: err.message });
    req.log.error({ err }, "unexpected receiver error");
    return fail(req, reply, format, { kind: "unavailable", reason: "internal", message: "internal error, retry later", retryAfterSeconds: 5 }, err);
  });

  return app;
}

/** The request body, each chunk added to the lease as it arrives; too many bytes in flight fails it with 429. */
function countedBody(payload: Readable, lease: ByteLease): Readable {
  let received = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      received += chunk.length;
      (counter as Transform & { receivedEncodedLength: number }).receivedEncodedLength = received;
      try {
        lease.grow(chunk.length);
      } catch (err) {
        return callback(Object.assign(err as Error, { statusCode: 429 }));
      }
      callback(null, chunk);
    },
  });
  payload.on("error", (err) => counter.destroy(err));
  return payload.pipe(counter);
}

/** A protobuf body that failed to decode but reads as JSON text (`{` or `[` after optional whitespace). */
function looksLikeJson(body: Buffer): boolean {
  for (const byte of body) {
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
    return byte === 0x7b || byte === 0x5b;
  }
  return false;
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
