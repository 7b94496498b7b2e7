/**
 * Composition of receiver, worker and API in one process. Used by main.ts and
 * by end-to-end tests, which start it on ephemeral ports.
 */
import { randomBytes } from "node:crypto";
import { buildApiApp } from "@crux/api";
import { bindHostOf, judgePolicyDefaultsOf, judgeServiceDefaultOf, validationBarOf } from "@crux/config";
import { createDatabase, createSecretBox, describeStorageError, ensureProject, migrate, type Database, type SecretBox } from "@crux/db";
import { createJudgeSuite } from "@crux/judges";
import { createBullmqQueue, createInProcessQueue, type JobQueue } from "@crux/queue";
import { createReceiver } from "@crux/receiver";
import { createAuthenticator } from "@crux/auth";
import { createMetricsRegistry, createShutdown, type Logger } from "@crux/runtime";
import { createWorker, workerQueueRegistry, type JudgeSuiteFactory, type Worker } from "@crux/worker";
import type { AllInOneConfig } from "./config.ts";
import { asPortInUse } from "./ports.ts";
import { embeddedSecretKey } from "./secret-key.ts";

/** Dirty traces enqueued by the start-up sweep at most; the sweeper picks up any beyond. */
const startupSweepLimit = 10_000;

export interface RunningCrux {
  ports: { otlpHttp: number; otlpGrpc: number; api: number };
  worker: Worker;
  storage: "postgres" | "pglite";
  queueKind: "bullmq" | "in-process";
  stop(reason?: string): Promise<void>;
}

/** Builds storage and queue from config (embedded default unless DATABASE_URL / REDIS_URL), then composes. */
export async function startAllInOne(config: AllInOneConfig, log: Logger): Promise<RunningCrux> {
  const database = config.DATABASE_URL
    ? await createDatabase({ url: config.DATABASE_URL, namedStatements: config.CRUX_PG_NAMED_STATEMENTS })
    : await createDatabase({ dataDir: config.CRUX_DATA_DIR });
  try {
    await migrate(database);
    await ensureProject(database, config.CRUX_DEFAULT_PROJECT, config.CRUX_DEFAULT_PROJECT);
  } catch (err) {
    await database.close();
    throw err;
  }
  // Embedded (PGlite) without CRUX_SECRET_KEY: a generated secret kept in the data folder. On Postgres, as in production, none.
  let secretBox: SecretBox | null = null;
  if (config.CRUX_SECRET_KEY) secretBox = createSecretBox(config.CRUX_SECRET_KEY);
  else if (config.DATABASE_URL === undefined && config.CRUX_DATA_DIR === "memory") {
    secretBox = createSecretBox(randomBytes(32).toString("base64url")); // the keys live as long as the in-memory database
  } else if (config.DATABASE_URL === undefined) {
    const key = await embeddedSecretKey(config.CRUX_DATA_DIR);
    if (key.created) log.info({ file: key.file }, "generated the secret that encrypts stored judge provider keys (set CRUX_SECRET_KEY to use your own)");
    secretBox = createSecretBox(key.secret);
  }
  const registry = workerQueueRegistry(config);
  const queue = config.REDIS_URL
    ? createBullmqQueue({ redisUrl: config.REDIS_URL, prefix: config.CRUX_QUEUE_PREFIX, log, registry, jobLockMs: config.CRUX_JOB_LOCK_MS })
    : createInProcessQueue({ log, registry });
  return composeCrux({ database, queue, config, log, secretBox });
}

/** Receiver + worker + API over given storage and queue; the returned stop() closes all of them, storage last. */
export async function composeCrux(deps: {
  database: Database;
  queue: JobQueue;
  config: AllInOneConfig;
  log: Logger;
  /** Seals the secrets projects store (judge provider keys, webhook signing secrets); default: from CRUX_SECRET_KEY, else none. */
  secretBox?: SecretBox | null;
  /** Builds the projects' LLM judges; default packages/judges' createJudgeSuite (tests pass a scripted one). */
  judgeSuites?: JudgeSuiteFactory;
}): Promise<RunningCrux> {
  const { database, queue, config, log } = deps;
  const secretBox = deps.secretBox !== undefined ? deps.secretBox : config.CRUX_SECRET_KEY ? createSecretBox(config.CRUX_SECRET_KEY) : null;
  const judges = { defaults: { model: judgeServiceDefaultOf(config), ...judgePolicyDefaultsOf(config) } };
  const shutdown = createShutdown({ deadlineMs: 15_000, log });

  // One registry: the API's /metrics (and the receiver's) show all three services of this process.
  const registry = createMetricsRegistry();
  const receiver = createReceiver({ database, queue, config, authRequired: config.CRUX_AUTH, log: log.child({ service: "receiver" }), registry });
  const worker = createWorker({
    database,
    queue,
    config,
    log: log.child({ service: "worker" }),
    registry,
    secretBox,
    judgeSuites: deps.judgeSuites ?? createJudgeSuite,
  });
  const authenticate = createAuthenticator({ database, required: config.CRUX_AUTH, defaultProjectId: config.CRUX_DEFAULT_PROJECT });
  let otlpHttpPort: number | null = null;
  const api = await buildApiApp({
    ui: { authRequired: config.CRUX_AUTH, otlpHttpPort: () => otlpHttpPort },
    database,
    authenticate,
    queue,
    registry,
    judges,
    validationBar: validationBarOf(config),
    secretBox,
    webhookSecretOverlapMs: config.CRUX_WEBHOOK_SECRET_OVERLAP_MS,
    privateTargets: config.CRUX_ALLOW_PRIVATE_TARGETS,
  });

  // Order matters: stop intake, let in-flight writes commit, drain jobs, then close storage.
  shutdown.add("receiver", () => receiver.close());
  shutdown.add("api", () => api.close());
  shutdown.add("worker", () => worker.stop());
  shutdown.add("queue", () => queue.close(10_000));
  shutdown.add("milestone threads", () => worker.close());
  shutdown.add("database", () => database.close());

  try {
    worker.start();
    // The in-process queue starts empty, so every trace still dirty was left by the previous run
    // (killed, or jobs cut off at the shutdown deadline): enqueue them now, before intake opens,
    // rather than after the sweeper's quiet period. A failure is not fatal: the sweeper retries.
    if (queue.kind === "in-process") {
      await worker.sweeper.sweepOnce({ quietMs: 0, limit: startupSweepLimit }).then(
        (traces) => traces > 0 && log.info({ traces }, "start-up sweep enqueued traces left dirty or unscored by the previous run"),
        (err: unknown) => log.warn({ err: describeStorageError(err) }, "start-up sweep failed; the sweeper will retry"),
      );
    }
    const { httpPort, grpcPort } = await receiver.listen().catch((err: unknown) => Promise.reject(asPortInUse(err, config)));
    otlpHttpPort = httpPort;
    await api
      .listen({ host: bindHostOf(config.CRUX_HOST, config.CRUX_AUTH), port: config.CRUX_API_PORT })
      .catch((err: unknown) => Promise.reject(asPortInUse(err, config)));
    const address = api.server.address();
    const apiPort = typeof address === "object" && address ? address.port : config.CRUX_API_PORT;
    return {
      ports: { otlpHttp: httpPort, otlpGrpc: grpcPort, api: apiPort },
      worker,
      storage: database.kind,
      queueKind: queue.kind,
      stop: (reason = "stop") => shutdown.shutdown(reason),
    };
  } catch (err) {
    await shutdown.shutdown("failed to start");
    throw err;
  }
}
