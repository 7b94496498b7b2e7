/**
 * A replay's re-runs share the dispatch table with experiment runs (experiment_id = the replay
 * id): an experiment declared with a replay's id plans, stops, resumes, counts and deletes only
 * its own runs, never the replay's. DELETE /replays/:id drops the replay and its unsent re-runs.
 * A replay's run timeout is the project's unless the request sets one. No queue here: planned
 * runs stay pending, which is what stop and delete act on.
 */
import { dispatchProgress, type Database } from "@crux/db";
import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOUR, NOW, PROJECT, buildTestApp } from "./harness.ts";
import { ingestRuns } from "./otlp-runs.ts";

describe.each(testDatabases())("replays on $name", ({ create }) => {
  let database: Database;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  const call = async (method: "GET" | "POST" | "DELETE", url: string, payload?: unknown) => {
    const res = await app.inject({ method, url, ...(payload === undefined ? {} : { payload: payload as object }) });
    return { status: res.statusCode, body: res.body === "" ? null : res.json() };
  };

  beforeAll(async () => {
    database = await create();
    app = await buildTestApp(database, { privateTargets: "loopback" });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it("an experiment named with a replay's id cannot reach the replay's runs; deleting the replay drops its unsent re-runs", async () => {
    const runner = await call("POST", "/api/v1/runners", { name: "r", url: "http://127.0.0.1:9/run", allowPrivateTargets: true });
    const ds = await call("POST", "/api/v1/datasets", { name: "tasks", items: [{ taskId: "t1", input: { q: 1 } }] });
    const source = { datasetId: ds.body.id, runnerId: runner.body.id };
    expect((await call("POST", "/api/v1/experiments", { id: "exp-src", name: "source", trials: 1, ...source, variants: [{ name: "full" }] })).status).toBe(201);
    const [traceId] = await ingestRuns(database, PROJECT, [
      { experimentId: "exp-src", variant: "full", taskId: "t1", trial: 0, activeAgents: ["planner", "worker"], success: false, startMs: NOW - HOUR },
    ]);

    const replay = await call("POST", `/api/v1/traces/${traceId}/replay`, { corrections: [{ agent: "planner", output: "a better plan" }], trials: 2 });
    expect(replay.status).toBe(202);
    const replayId = replay.body.id as string;
    const replayProgress = async () => (await call("GET", `/api/v1/replays/${replayId}`)).body.progress;
    expect(await replayProgress()).toMatchObject({ expected: 2, pending: 2, stopped: 0 });

    // The same id, variant name, task and trials as the replay's re-runs: planned all the same.
    const twin = await call("POST", "/api/v1/experiments", { id: replayId, name: "twin", trials: 2, ...source, variants: [{ name: "agent:planner" }] });
    expect(twin.status).toBe(201);
    expect((await call("POST", `/api/v1/experiments/${replayId}/start`)).body.dispatches).toBe(2);
    expect((await call("GET", `/api/v1/experiments/${replayId}/progress`)).body).toMatchObject({ expected: 2, pending: 2 });

    const stopped = await call("POST", `/api/v1/experiments/${replayId}/stop`);
    expect(stopped.body).toMatchObject({ expected: 2, pending: 0, stopped: 2 });
    expect(await replayProgress()).toMatchObject({ expected: 2, pending: 2, stopped: 0 });
    expect((await call("POST", `/api/v1/experiments/${replayId}/resume`)).body).toMatchObject({ expected: 2, pending: 2, stopped: 0 });
    expect((await call("DELETE", `/api/v1/experiments/${replayId}`)).status).toBe(204);
    expect(await replayProgress()).toMatchObject({ expected: 2, pending: 2 });

    const deleted = await call("DELETE", `/api/v1/replays/${replayId}`);
    expect(deleted.status).toBe(204);
    expect((await call("GET", `/api/v1/replays/${replayId}`)).status).toBe(404);
    expect((await call("DELETE", `/api/v1/replays/${replayId}`)).status).toBe(404);
    expect((await call("GET", `/api/v1/traces/${traceId}/replays`)).body.items).toEqual([]);
    expect(await dispatchProgress(database, PROJECT, replayId, "replay")).toMatchObject({ expected: 0, pending: 0 });
    expect((await call("DELETE", "/api/v1/replays/not-a-uuid")).status).toBe(400);
  });

  it("a replay's run timeout: the project's by default, else the one asked for, within 10 s to 24 h", async () => {
    const [traceId] = await ingestRuns(database, PROJECT, [
      { experimentId: "exp-src", variant: "full", taskId: "t1", trial: 1, activeAgents: ["planner", "worker"], success: false, startMs: NOW - HOUR },
    ]);
    const body = { corrections: [{ agent: "worker", output: "done right" }], trials: 1 };
    const byDefault = await call("POST", `/api/v1/traces/${traceId}/replay`, body);
    expect(byDefault.body.runTimeoutMs).toBe(1_800_000);
    const asked = await call("POST", `/api/v1/traces/${traceId}/replay`, { ...body, runTimeoutMs: 60_000 });
    expect(asked.status).toBe(202);
    expect(asked.body.runTimeoutMs).toBe(60_000);
    expect((await call("GET", `/api/v1/replays/${asked.body.id}`)).body.runTimeoutMs).toBe(60_000);
    for (const runTimeoutMs of [5_000, 86_400_001, 1.5e4 + 0.5]) {
      const bad = await call("POST", `/api/v1/traces/${traceId}/replay`, { ...body, runTimeoutMs });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toMatch(/runTimeoutMs/);
    }
  });
});
