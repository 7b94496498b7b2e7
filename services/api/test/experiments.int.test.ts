import { claimDispatch, compactScoreRollups, pendingDispatchIds, persistTraceScores, type Database } from "@crux/db";
import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOUR, NOW, PROJECT, buildTestApp } from "./harness.ts";
import { scoreRecord, type RecordSpec } from "./score-records.ts";

const agents = ["planner", "reviewer", "worker"];

/** Deterministic outcomes: planner and worker carry the system, the reviewer hurts it (removing it helps). */
function succeeds(active: string[] | null, task: number, trial: number): boolean {
  const set = active ?? agents;
  let score = 0;
  if (set.includes("worker")) score += 2;
  if (set.includes("planner")) score += 1;
  if (set.includes("reviewer")) score -= 1;
  // score 2 (full system): 2 trials of 3 succeed; 3 (without reviewer): all; 1: 1 of 3 on odd tasks; less: none.
  return score >= 3 || (score === 2 && trial < 2) || (score === 1 && trial === 0 && task % 2 === 1);
}

describe.each(testDatabases())("experiments API on $name", ({ create }) => {
  let database: Database;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  const call = async (method: "GET" | "POST" | "PUT" | "DELETE", url: string, payload?: unknown) => {
    const res = await app.inject({ method, url, ...(payload === undefined ? {} : { payload: payload as object }) });
    return { status: res.statusCode, body: res.body === "" ? null : res.json() };
  };
  let n = 1000;
  const persistRun = (spec: Omit<RecordSpec, "n">) => persistTraceScores(database, PROJECT, scoreRecord({ ...spec, n: n++ }));

  beforeAll(async () => {
    database = await create();
    app = await buildTestApp(database, { privateTargets: "loopback" });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it("datasets: versions on change, JSON Lines import, paged items, a bad line rejected whole, delete", async () => {
    const created = await call("POST", "/api/v1/datasets", {
      name: "tasks",
      items: Array.from({ length: 12 }, (_, i) => ({
        taskId: `t${String(i).padStart(2, "0")}`,
        input: { q: i },
        humanMinutes: 2 ** (i % 6),
        family: `f${i % 4}`,
      })),
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "tasks", currentVersion: 1, items: 12 });
    const id = created.body.id as string;
    expect((await call("POST", "/api/v1/datasets", { name: "tasks" })).status).toBe(409);

    const jsonl = ['{"taskId":"t00","input":"changed"}', "", '{"taskId":"t99","input":{"q":99},"expected":"42"}'].join("\n");
    const v2 = await call("POST", `/api/v1/datasets/${id}/items`, { jsonl });
    expect(v2.body).toMatchObject({ currentVersion: 2, items: 13 });
    const bad = await call("POST", `/api/v1/datasets/${id}/items`, { jsonl: '{"taskId":"ok","input":1}\n{"taskId":"","input":1}' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/jsonl line 2: taskId/);
    expect((await call("GET", `/api/v1/datasets/${id}`)).body.currentVersion).toBe(2);

    const page1 = await call("GET", `/api/v1/datasets/${id}/items?limit=10`);
    expect(page1.body.version).toBe(2);
    expect(page1.body.items).toHaveLength(10);
    expect(page1.body.items[0]).toMatchObject({ taskId: "t00", input: "changed" });
    const page2 = await call("GET", `/api/v1/datasets/${id}/items?limit=10&cursor=${page1.body.nextCursor}`);
    expect(page2.body.items.map((x: { taskId: string }) => x.taskId)).toEqual(["t10", "t11", "t99"]);
    expect(page2.body.nextCursor).toBeNull();
    const old = await call("GET", `/api/v1/datasets/${id}/items?version=1&limit=1`);
    expect(old.body.items[0]).toMatchObject({ taskId: "t00", input: { q: 0 } });

    const other = await call("POST", "/api/v1/datasets", { name: "scratch" });
    expect((await call("DELETE", `/api/v1/datasets/${other.body.id}`)).status).toBe(204);
    expect((await call("GET", `/api/v1/datasets/${other.body.id}`)).status).toBe(404);
  });

  it("an experiment with a baseline and leave-one-out ablations: report, credit and directive, every figure traceable to its runs", async () => {
    const exp = await call("POST", "/api/v1/experiments", {
      id: "exp-loo",
      name: "is the reviewer worth it",
      trials: 3,
      variants: [
        { name: "single", isBaseline: true },
        { name: "full", activeAgents: agents },
      ],
    });
    expect(exp.status).toBe(201);
    const abl = await call("POST", "/api/v1/experiments/exp-loo/ablations", { mode: "leave_one_out" });
    // The full system is already a variant: only N∖{i} is added.
    expect(abl.body.added).toEqual(["agents:reviewer+worker", "agents:planner+worker", "agents:planner+reviewer"]);
    const put = await call("PUT", "/api/v1/experiment-settings", { shipBar: { kind: "quality_difference", min: 0 } });
    expect(put.body).toMatchObject({ includeInMetrics: false, shipBar: { kind: "quality_difference", min: 0 }, runTimeoutMs: 1_800_000 });

    const variants: { name: string; active: string[] | null; baseline?: boolean }[] = [
      { name: "single", active: null, baseline: true },
      { name: "full", active: agents },
      ...agents.map((a) => ({ name: `agents:${agents.filter((x) => x !== a).join("+")}`, active: agents.filter((x) => x !== a) })),
    ];
    for (const v of variants) {
      for (let task = 0; task < 12; task++) {
        for (let trial = 0; trial < 3; trial++) {
          const success = v.baseline ? trial === 0 : succeeds(v.active, task, trial);
          const per = v.baseline ? 1 : (v.active?.length ?? 3);
          await persistRun({
            startMs: NOW - HOUR,
            success,
            taskId: `t${task}`,
            isBaseline: v.baseline ?? false,
            agents: [{ agent: "lead", input: 100 * per, output: 0, cost: 0.01 * per }],
            findings: success ? [] : [{ mode: "FM-3.2", agent: "lead" }],
            run: { experimentId: "exp-loo", variant: v.name, trial, activeAgents: v.baseline ? null : v.active },
          });
        }
      }
    }
    const report = await call("GET", "/api/v1/experiments/exp-loo/report");
    expect(report.status).toBe(200);
    const r = report.body;
    expect(r.baseline).toBe("single");
    expect(r.candidate).toBe("full");
    const full = r.variants.find((v: { name: string }) => v.name === "full");
    expect(full.runs).toBe(36);
    expect(full.traceIds).toHaveLength(36);
    expect(full.successRate.estimate).toBeCloseTo(2 / 3, 10);
    // Every task succeeds 2 times in 3: pass@k is 2/3, 1, 1; pass^k falls 2/3, 1/3, 0.
    expect(full.passK.map((p: { k: number }) => p.k)).toEqual([1, 2, 3]);
    [2 / 3, 1 / 3, 0].forEach((hat, i) => expect(full.passK[i].passHatK).toBeCloseTo(hat, 12));
    [2 / 3, 1, 1].forEach((at, i) => expect(full.passK[i].passAtK).toBeCloseTo(at, 12));
    expect(full.vsBaseline.qualityDifference.estimate).toBeCloseTo(1 / 3, 10);
    expect(full.vsBaseline.qualityWithinNoise).toBe(false);
    expect(full.vsBaseline.tokenMultiplier.estimate).toBeCloseTo(3, 10);
    expect(full.vsBaseline.cau).toMatchObject({ status: "estimable" });
    expect(full.vsBaseline.cau.value.estimate).toBeCloseTo(1 / 3 / 0.02, 6);
    const verdicts = Object.fromEntries(r.credit.leaveOneOut.map((l: { agent: string; verdict: string }) => [l.agent, l.verdict]));
    expect(verdicts).toEqual({ planner: "contributes", reviewer: "harmful", worker: "contributes" });
    expect(r.credit.shapley.method).toBe("none");
    expect(r.directive.decision).toBe("ship");
    expect(r.directive.dominantMode.mode).toBe("FM-3.2");
    expect(r.directive.structuralChange).toMatch(/verifier/);
    expect(r.directive.agentChanges.join(" ")).toMatch(/reviewer/);
    expect((await call("GET", "/api/v1/experiments/nope/report")).status).toBe(404);
  });

  it("an implicit experiment from run tags alone is listed and reported", async () => {
    for (let task = 0; task < 3; task++) {
      await persistRun({
        startMs: NOW - HOUR,
        success: task > 0,
        taskId: `i${task}`,
        agents: [{ agent: "a", input: 10, output: 0 }],
        run: { experimentId: "exp-tags", variant: "v1" },
      });
    }
    const list = await call("GET", "/api/v1/experiments?limit=100");
    const implicit = list.body.items.find((e: { id: string }) => e.id === "exp-tags");
    expect(implicit).toMatchObject({ implicit: true, runs: 3, variants: [{ name: "v1", implicit: true }] });
    expect(list.body.items.find((e: { id: string }) => e.id === "exp-loo")).toMatchObject({ implicit: false, runs: 180 });
    const report = await call("GET", "/api/v1/experiments/exp-tags/report");
    expect(report.body.variants[0]).toMatchObject({ name: "v1", runs: 3, tasks: 3 });
    expect(report.body.variants[0].successRate.fewTasks).toBe(true);
    expect(report.body.directive.reasons[0]).toMatch(/no candidate|bar/);
  });

  it("experiment runs do not move production metrics unless the project opts in", async () => {
    // A production run in a window of its own; experiment runs in the same window must not count.
    const windowQ = `from=${new Date(NOW - 30 * HOUR).toISOString()}&to=${new Date(NOW - 20 * HOUR).toISOString()}`;
    await persistRun({ startMs: NOW - 25 * HOUR, success: true, taskId: "p", agents: [{ agent: "a", input: 10, output: 0 }] });
    const before = await call("GET", `/api/v1/metrics/success?${windowQ}`);
    const modesBefore = await call("GET", `/api/v1/metrics/failure-modes?${windowQ}`);
    expect(before.body.runs).toBe(1);
    for (let i = 0; i < 4; i++) {
      await persistRun({
        startMs: NOW - 25 * HOUR,
        success: false,
        taskId: `x${i}`,
        agents: [{ agent: "a", input: 10, output: 0 }],
        findings: [{ mode: "FM-1.3", agent: "a" }],
        run: { experimentId: "exp-hidden", variant: "v" },
      });
    }
    const check = async () => {
      const after = await call("GET", `/api/v1/metrics/success?${windowQ}`);
      const modesAfter = await call("GET", `/api/v1/metrics/failure-modes?${windowQ}`);
      expect(after.body.runs).toBe(1);
      expect(after.body.successRate.estimate).toBe(1);
      expect(modesAfter.body.scopeTraces).toBe(modesBefore.body.scopeTraces);
    };
    await check();
    await compactScoreRollups(database); // folded into the stored rollups: still out
    await check();
    expect((await call("GET", "/api/v1/experiments/exp-hidden/report")).body.variants[0].runs).toBe(4);

    // Opted in: the stored runs (folded above) count at once, and so do runs scored from now on.
    await call("PUT", "/api/v1/experiment-settings", { includeInMetrics: true });
    const included = async (runs: number) => {
      expect((await call("GET", `/api/v1/metrics/success?${windowQ}`)).body.runs).toBe(runs);
      const modes = await call("GET", `/api/v1/metrics/failure-modes?${windowQ}`);
      expect(modes.body.scopeTraces).toBe(modesBefore.body.scopeTraces + runs - 1);
      expect(modes.body.rates.find((r: { mode: string }) => r.mode === "FM-1.3").numerator).toBe(Math.min(runs - 1, 4));
    };
    await included(5);
    await compactScoreRollups(database);
    await included(5);
    await persistRun({
      startMs: NOW - 25 * HOUR,
      success: false,
      taskId: "y",
      agents: [{ agent: "a", input: 10, output: 0 }],
      run: { experimentId: "exp-hidden", variant: "v" },
    });
    await included(6);
    // Opted out again: every stored experiment run leaves the metrics, folded or not.
    await call("PUT", "/api/v1/experiment-settings", { includeInMetrics: false });
    await check();
    await compactScoreRollups(database);
    await check();
  });
  it("start plans every task × variant × trial once; progress counts pending, running, timed out and stopped; concurrency bounds what is in flight", async () => {
    const runner = await call("POST", "/api/v1/runners", { name: "r", url: "http://127.0.0.1:9/run", allowPrivateTargets: true });
    expect(runner.status).toBe(201);
    expect(runner.body.secret).toMatch(/^whsec_/);
    expect((await call("POST", "/api/v1/runners", { name: "r", url: "http://10.0.0.1/run" })).status).toBe(400);
    const ds = await call("POST", "/api/v1/datasets", {
      name: "dispatch",
      items: [
        { taskId: "a", input: 1 },
        { taskId: "b", input: 2 },
      ],
    });
    await call("POST", "/api/v1/experiments", {
      id: "exp-run",
      name: "dispatch",
      datasetId: ds.body.id,
      runnerId: runner.body.id,
      trials: 2,
      variants: [{ name: "single", isBaseline: true }, { name: "multi" }],
    });
    await call("PUT", "/api/v1/experiment-settings", { maxRunsPerStart: 8, concurrency: 1 });
    const started = await call("POST", "/api/v1/experiments/exp-run/start");
    expect(started.body).toEqual({ experimentId: "exp-run", dispatches: 8, cap: 8, concurrency: 1 });
    expect((await call("POST", "/api/v1/experiments/exp-run/start")).body.dispatches).toBe(0);
    expect((await call("GET", "/api/v1/experiments/exp-run/progress")).body).toMatchObject({ status: "running", expected: 8, pending: 8, running: 0 });

    // One slot: the first claim takes it, the second waits.
    const [first, second] = await pendingDispatchIds(database, PROJECT, "exp-run");
    expect(await claimDispatch(database, first!, 1, 60_000)).toBe("claimed");
    expect(await claimDispatch(database, second!, 1, 60_000)).toBe("busy");
    expect((await call("GET", "/api/v1/experiments/exp-run/progress")).body).toMatchObject({ pending: 7, running: 1, timedOut: 0 });

    const stopped = await call("POST", "/api/v1/experiments/exp-run/stop");
    expect(stopped.body).toMatchObject({ status: "stopped", pending: 0, stopped: 7, running: 1 });
    const resumed = await call("POST", "/api/v1/experiments/exp-run/resume");
    expect(resumed.body).toMatchObject({ status: "running", pending: 7, stopped: 0 });

    // A sent run not scored by its deadline is timed out, never silently missing; its slot frees.
    await call("PUT", "/api/v1/experiment-settings", { concurrency: 2 });
    expect(await claimDispatch(database, second!, 2, 1)).toBe("claimed");
    await new Promise((r) => setTimeout(r, 20));
    expect((await call("GET", "/api/v1/experiments/exp-run/progress")).body).toMatchObject({ running: 1, timedOut: 1, pending: 6 });
    // Implicit experiments cannot be started.
    expect((await call("POST", "/api/v1/experiments/exp-tags/start")).status).toBe(400);
  });
});
