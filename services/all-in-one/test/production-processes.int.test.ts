/**
 * The production layout end to end, as real processes started with the
 * commands the README and docker-compose use: `pnpm migrate`, `pnpm crux keys
 * create`, then `pnpm start:receiver`, `pnpm start:worker` and `pnpm
 * start:api` on Postgres + Redis with auth on. A real OTel exporter sends a
 * multi-agent trace, the scores are read over REST, and SIGTERM to each pnpm
 * (what docker stop sends to PID 1) ends it with exit 0.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:net";
import { purgeQueuePrefix } from "@crux/queue";
import { MULTI_AGENT_EXPECTED } from "@crux/testkit";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { exportMultiAgentTrace, killLeftovers, spawnScript, waitForScores, type CruxProcess } from "./processes.ts";

const databaseUrl = process.env.DATABASE_URL;
const redisUrl = process.env.REDIS_URL;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

describe.runIf(databaseUrl && redisUrl)("production entry points as processes (Postgres + Redis)", () => {
  const name = `crux_e2e_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const prefix = `test-e2e-${randomUUID()}`;
  const url = new URL(databaseUrl ?? "postgres://unused");
  url.pathname = `/${name}`;
  const admin = new pg.Client({ connectionString: databaseUrl });

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
  });
  afterEach(killLeftovers);
  afterAll(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    await purgeQueuePrefix(redisUrl!, prefix);
  });

  it("migrate, create a key, run receiver + worker + api, export, read the scores, stop each with SIGTERM", async () => {
    const base = { DATABASE_URL: url.toString() };
    const migrate = spawnScript("migrate", [], base);
    expect((await migrate.exited).code).toBe(0);
    const keys = spawnScript("crux", ["keys", "create", "--project", "e2e", "--name", "e2e-test"], base);
    expect((await keys.exited).code).toBe(0);
    const key = /store it now\):\n(\S+)/.exec(keys.stdout())?.[1];
    expect(key).toBeDefined();
    const auth = { Authorization: `Bearer ${key}` };

    const [httpPort, grpcPort, apiPort] = [await freePort(), await freePort(), await freePort()];
    const shared = { ...base, CRUX_HOST: "127.0.0.1", CRUX_AUTH: "true" };
    const queue = { REDIS_URL: redisUrl!, CRUX_QUEUE_PREFIX: prefix };
    const services: Record<string, CruxProcess> = {
      receiver: spawnScript("start:receiver", [], {
        ...shared,
        ...queue,
        CRUX_OTLP_HTTP_PORT: String(httpPort),
        CRUX_OTLP_GRPC_PORT: String(grpcPort),
        CRUX_SETTLE_DELAY_MS: "300",
        CRUX_SETTLE_ROOT_DELAY_MS: "100",
      }),
      worker: spawnScript("start:worker", [], { ...base, ...queue }),
      api: spawnScript("start:api", [], { ...shared, CRUX_API_PORT: String(apiPort) }),
    };
    await services.receiver!.waitFor(/receiver listening/);
    await services.worker!.waitFor(/worker started/);
    await services.api!.waitFor(/listening/i);

    const traceId = await exportMultiAgentTrace(`http://127.0.0.1:${httpPort}/v1/traces`, auth);
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    const scores = await waitForScores(apiUrl, traceId, 30_000, auth);
    const byAgent = Object.fromEntries(scores.agents.map((a: any) => [a.agent, a]));
    expect(Object.keys(byAgent).sort()).toEqual([...MULTI_AGENT_EXPECTED.agents].sort());
    for (const [agent, t] of Object.entries(MULTI_AGENT_EXPECTED.tokens)) {
      expect(byAgent[agent].inputTokens, `${agent} input`).toBe(t.input);
      expect(byAgent[agent].outputTokens, `${agent} output`).toBe(t.output);
    }
    expect((await fetch(`${apiUrl}/api/v1/traces/${traceId}/scores`)).status).toBe(401);

    for (const service of Object.values(services)) service.child.kill("SIGTERM");
    for (const [name, service] of Object.entries(services)) {
      expect(await service.exited, `${name}: ${service.stderr()}`).toEqual({ code: 0, signal: null });
      expect(service.stdout() + service.stderr(), name).not.toMatch(/ELIFECYCLE/);
    }
  }, 180_000);
});
