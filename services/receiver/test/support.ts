/**
 * The receiver on each backend for integration tests: the embedded default
 * (PGlite + in-process queue) always, Postgres + BullMQ when DATABASE_URL and
 * REDIS_URL are set. Each start gets a fresh database and its own queue prefix.
 */
import { Writable } from "node:stream";
import { loadConfig } from "@crux/config";
import { createDatabase, ensureProject, schema, type Database, type PostgresDatabase } from "@crux/db";
import { type JobQueue } from "@crux/queue";
import { startTcpProxy, testBackends, type Backend, type TcpProxy } from "@crux/testkit";
import { pino } from "pino";
import protobuf from "protobufjs";
import { createReceiver, receiverConfigSchema, type Receiver, type ReceiverDeps } from "../src/index.ts";

export function backends(): Backend[] {
  return testBackends({ queuePrefix: "test-recv" });
}

const silentLog = { info() {}, warn() {}, error() {} };

/** A pino logger whose JSON lines are collected in `lines`. */
export function capturedLog(): { log: ReturnType<typeof pino>; lines: Record<string, any>[] } {
  const lines: Record<string, any>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split("\n")) if (line.trim()) lines.push(JSON.parse(line));
      callback();
    },
  });
  return { log: pino({ level: "info" }, sink), lines };
}

export interface TestReceiver {
  receiver: Receiver;
  database: Database;
  queue: JobQueue;
  baseUrl: string;
  otlpUrl: string;
  grpcAddress: string;
  stop(): Promise<void>;
}

export async function startReceiver(
  backend: Backend,
  env: Record<string, string> = {},
  deps: Partial<Omit<ReceiverDeps, "config">> & { apiPort?: number } = {},
): Promise<TestReceiver> {
  const config = {
    ...loadConfig(receiverConfigSchema, { CRUX_HOST: "127.0.0.1", CRUX_OTLP_HTTP_PORT: "0", CRUX_OTLP_GRPC_PORT: "0", ...env }),
    CRUX_API_PORT: deps.apiPort,
  };
  const database = deps.database ?? (await backend.createDatabase());
  await ensureProject(database, config.CRUX_DEFAULT_PROJECT, config.CRUX_DEFAULT_PROJECT);
  const own = deps.queue ? null : backend.createQueue();
  const queue = deps.queue ?? own!.queue;
  const receiver = createReceiver({ authRequired: false, log: silentLog, ...deps, database, queue, config });
  const { httpPort, grpcPort } = await receiver.listen();
  let stopped = false;
  return {
    receiver,
    database,
    queue,
    baseUrl: `http://127.0.0.1:${httpPort}`,
    otlpUrl: `http://127.0.0.1:${httpPort}/v1/traces`,
    grpcAddress: `127.0.0.1:${grpcPort}`,
    async stop() {
      if (stopped) return;
      stopped = true;
      await receiver.close();
      if (own) {
        await own.queue.close(1_000);
        await own.purge();
      }
      if (!deps.database) await database.close();
    },
  };
}

/** Names of the spans stored, sorted. */
export async function storedSpanNames(database: Database): Promise<string[]> {
  const rows = await database.db.select({ name: schema.spans.name }).from(schema.spans);
  return rows.map((r) => r.name).sort();
}

const TRACE_ID = "5b8efff798038103d269b633813fc60c";

/** An OTLP/JSON span; `i` makes the span id unique. */
export function jsonSpan(i: number, over: Record<string, unknown> = {}) {
  return {
    traceId: TRACE_ID,
    spanId: (0x1000_0000_0000_0000n + BigInt(i)).toString(16),
    name: `span-${i}`,
    kind: 1,
    startTimeUnixNano: "1700000000000000000",
    endTimeUnixNano: "1700000001000000000",
    ...over,
  };
}

export function jsonExport(spans: object[]): string {
  return JSON.stringify({
    resourceSpans: [
      { resource: { attributes: [{ key: "service.name", value: { stringValue: "receiver-test" } }] }, scopeSpans: [{ scope: { name: "t" }, spans }] },
    ],
  });
}

export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 5_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

// A minimal copy of the OTLP messages the tests build and read, field numbers as in the .proto files.
const wire = protobuf.parse(`syntax = "proto3";
message Req { repeated RS resource_spans = 1; }
message RS { repeated SS scope_spans = 2; }
message SS { repeated Span spans = 2; }
message Span { bytes trace_id = 1; bytes span_id = 2; string name = 5; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8; }
message Resp { Partial partial_success = 1; }
message Partial { int64 rejected_spans = 1; string error_message = 2; }
message Status { int32 code = 1; string message = 2; }`).root;

/** A binary ExportTraceServiceRequest of spans given like jsonSpan() (hex ids, decimal timestamps). */
export function protoExport(spans: ReturnType<typeof jsonSpan>[]): Uint8Array {
  const Req = wire.lookupType("Req");
  const message = Req.fromObject({
    resourceSpans: [
      {
        scopeSpans: [
          {
            spans: spans.map((s) => ({
              traceId: Buffer.from(s.traceId, "hex"),
              spanId: Buffer.from(s.spanId, "hex"),
              name: s.name,
              startTimeUnixNano: String(s.startTimeUnixNano),
              endTimeUnixNano: String(s.endTimeUnixNano),
            })),
          },
        ],
      },
    ],
  });
  return Req.encode(message).finish();
}

export function decodeProtoResponse(bytes: Uint8Array): { partialSuccess?: { rejectedSpans?: number; errorMessage?: string } } {
  const Resp = wire.lookupType("Resp");
  return Resp.toObject(Resp.decode(bytes), { longs: Number }) as never;
}

export function decodeProtoStatus(bytes: Uint8Array): { code?: number; message?: string } {
  const Status = wire.lookupType("Status");
  return Status.toObject(Status.decode(bytes)) as never;
}

/** A second connection pool to the same Postgres database, through a TCP proxy the test can cut. */
export async function throughProxy(database: Database): Promise<{ database: Database; proxy: TcpProxy; url: string }> {
  const url = (database as PostgresDatabase).pool.options.connectionString!;
  const target = new URL(url);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const proxiedUrl = proxy.urlFor(url);
  return { database: await createDatabase({ url: proxiedUrl, poolSize: 2 }), proxy, url: proxiedUrl };
}
