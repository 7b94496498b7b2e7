/**
 * OTLP/HTTP: POST /v1/traces with application/x-protobuf or application/json,
 * optionally gzip/deflate. Responses use the request's encoding; errors carry a
 * google.rpc.Status body (conventions.md §1.4).
 */
import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";
import { encodeExportResponse, encodeRpcStatus, type OtlpFormat } from "@crux/otlp";
import { apiKeyFromHeaders, type Authenticator } from "@crux/runtime";
import { decompressBody, parseContentEncoding } from "./decompress.ts";
import { classifyIngestError, describeError, httpStatusOf, type IngestFailure } from "./errors.ts";
import type { IngestPipeline } from "./ingest.ts";

export interface HttpReceiverOptions {
  pipeline: IngestPipeline;
  authenticate: Authenticator;
  /** Max body size in bytes, compressed and decompressed. */
  maxBodyBytes: number;
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
  too_large: 8,
  unsupported_media_type: 3,
  overloaded: 8,
  unavailable: 14,
};

export function formatOfContentType(header: string | undefined): OtlpFormat | null {
  const base = (header ?? "").split(";")[0]!.trim().toLowerCase();
  return CONTENT_TYPES[base] ?? null;
}

export function buildHttpReceiver(opts: HttpReceiverOptions): FastifyInstance {
  const app = Fastify({ logger: opts.logger ?? false, bodyLimit: opts.maxBodyBytes, requestTimeout: 60_000 });

  // Every body arrives as raw bytes; the route decides what it is.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => done(null, body));

  function fail(reply: FastifyReply, format: OtlpFormat, f: IngestFailure) {
    const status = httpStatusOf(f);
    if (f.kind === "overloaded" || f.kind === "unavailable") reply.header("retry-after", String(f.retryAfterSeconds));
    return reply.code(status).header("content-type", MEDIA_TYPE[format]).send(Buffer.from(encodeRpcStatus(format, RPC_CODE[f.kind], f.message)));
  }

  app.post("/v1/traces", async (req, reply) => {
    const format = formatOfContentType(req.headers["content-type"]);
    if (!format) {
      // Collector behaviour: 415 with a plain explanation (we still send a Status, in JSON).
      return fail(reply, "json", {
        kind: "unsupported_media_type",
        message: `unsupported content type '${req.headers["content-type"] ?? ""}'; supported: application/x-protobuf, application/json`,
      });
    }
    const auth = await opts.authenticate(apiKeyFromHeaders((n) => headerValue(req.headers[n])));
    if (!auth.ok) return fail(reply, format, { kind: "unauthenticated", message: auth.reason });

    const encoding = parseContentEncoding(headerValue(req.headers["content-encoding"]));
    if (!encoding) {
      return fail(reply, format, { kind: "bad_request", message: `unsupported content encoding '${req.headers["content-encoding"]}'; supported: gzip, deflate, identity` });
    }
    try {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const body = await decompressBody(raw, encoding, opts.maxBodyBytes);
      const outcome = await opts.pipeline.ingest(body, format, auth.projectId);
      const partial = outcome.rejectedSpans > 0 || outcome.rejectionMessage ? { rejectedSpans: outcome.rejectedSpans, errorMessage: outcome.rejectionMessage } : undefined;
      return reply.code(200).header("content-type", MEDIA_TYPE[format]).send(Buffer.from(encodeExportResponse(format, partial)));
    } catch (err) {
      const f = classifyIngestError(err);
      if (f.kind === "unavailable") req.log.error(describeError(err), "ingest failed");
      return fail(reply, format, f);
    }
  });

  app.route({ method: ["GET", "PUT", "DELETE", "PATCH"], url: "/v1/traces", handler: async (req, reply) =>
    reply.code(405).header("allow", "POST").send({ code: 5, message: `method ${req.method} not allowed, supported: [POST]` }),
  });

  // Fastify's own errors (body over the limit, aborted requests) in OTLP form.
  app.setErrorHandler((err: { statusCode?: number; message: string }, req, reply) => {
    const format = formatOfContentType(req.headers["content-type"]) ?? "json";
    if (err.statusCode === 413) return fail(reply, format, { kind: "too_large", message: `request body is larger than ${opts.maxBodyBytes} bytes` });
    if (err.statusCode && err.statusCode < 500) return fail(reply, format, { kind: "bad_request", message: err.message });
    req.log.error({ err }, "unexpected receiver error");
    return fail(reply, format, { kind: "unavailable", message: "internal error, retry later", retryAfterSeconds: 5 });
  });

  app.get("/healthz", async () => ({ status: "ok" }));
  return app;
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
