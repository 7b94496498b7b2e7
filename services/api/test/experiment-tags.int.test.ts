/**
 * Experiments known only from their runs' tags, seeded as OTLP exports (otlp-runs.ts): the
 * implicit experiment's variants carry the active agents their runs were tagged with, its trials
 * are the trials the runs carry, and the report's candidate is the whole system, not a
 * single-agent coalition that sorts first. The runs list narrows to an experiment's (or a
 * replay's) variants server-side.
 */
import type { Database } from "@crux/db";
import { testDatabases, type TaggedRun } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOUR, NOW, PROJECT, buildTestApp } from "./harness.ts";
import { ingestRuns } from "./otlp-runs.ts";

const variants: { name: string; agents: string[] | null; succeeds: (task: number, trial: number) => boolean }[] = [
  { name: "single", agents: null, succeeds: (task, trial) => trial === 0 && task % 2 === 0 },
  { name: "full", agents: ["planner", "worker"], succeeds: (task, trial) => (task + trial) % 4 !== 0 },
  { name: "agents:worker", agents: ["worker"], succeeds: (_task, trial) => trial === 0 },
  { name: "agents:planner", agents: ["planner"], succeeds: (task, trial) => task === 0 && trial === 0 },
];

describe.each(testDatabases())("experiments from run tags on $name", ({ create }) => {
  let database: Database;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  const byVariant = new Map<string, string[]>();
  const get = async (url: string) => {
    const res = await app.inject({ method: "GET", url });
    return { status: res.statusCode, body: res.json() };
  };

  beforeAll(async () => {
    database = await create();
    app = await buildTestApp(database);
    let t = NOW - HOUR;
    for (const v of variants) {
      const runs: TaggedRun[] = [];
      for (let task = 0; task < 4; task++) {
        for (let trial = 0; trial < 2; trial++) {
          runs.push({
            experimentId: "exp-otlp",
            variant: v.name,
            taskId: `task-${task}`,
            trial,
            success: v.succeeds(task, trial),
            startMs: (t += 1000),
            // The whole system's runs send the set as one comma-separated string, the others as an array.
            ...(v.agents === null ? { baseline: true } : { activeAgents: v.name === "full" ? v.agents.join(",") : v.agents }),
          });
        }
      }
      byVariant.set(v.name, await ingestRuns(database, PROJECT, runs));
    }
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it("an implicit experiment's variants carry their runs' active agents and trials; the candidate is the whole system", async () => {
    const experiment = await get("/api/v1/experiments/exp-otlp");
    expect(experiment.status).toBe(200);
    expect(experiment.body).toMatchObject({ implicit: true, runs: 32, trials: 2 });
    const agentsOf = Object.fromEntries(experiment.body.variants.map((v: { name: string; activeAgents: string[] | null }) => [v.name, v.activeAgents]));
    expect(agentsOf).toEqual({ "agents:planner": ["planner"], "agents:worker": ["worker"], full: ["planner", "worker"], single: null });
    expect(experiment.body.variants.find((v: { name: string }) => v.name === "single").isBaseline).toBe(true);

    const report = await get("/api/v1/experiments/exp-otlp/report");
    expect(report.body.baseline).toBe("single");
    expect(report.body.candidate).toBe("full");
    const full = report.body.variants.find((v: { name: string }) => v.name === "full");
    expect(full).toMatchObject({ activeAgents: ["planner", "worker"], runs: 8, tasks: 4, minTrials: 2 });
    expect(full.traceIds).toEqual([...byVariant.get("full")!].sort());
    expect(report.body.credit.agents).toEqual(["planner", "worker"]);
    expect(report.body.credit.shapley.method).toBe("exact");
  });

  it("the runs list narrows to an experiment's variants, or a replay's correction sets, server-side", async () => {
    const ids = async (query: string) => {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await get(`/api/v1/traces?${query}&limit=5${cursor === null ? "" : `&cursor=${cursor}`}`);
        expect(page.status).toBe(200);
        ids.push(...page.body.items.map((r: { traceId: string }) => r.traceId));
        cursor = page.body.nextCursor;
      } while (cursor !== null);
      return ids.sort();
    };
    const of = (...names: string[]) => names.flatMap((n) => byVariant.get(n)!).sort();
    expect(await ids("experiment=exp-otlp")).toEqual(of("single", "full", "agents:worker", "agents:planner"));
    expect(await ids("experiment=exp-otlp&variant=full")).toEqual(of("full"));
    expect(await ids("experiment=exp-otlp&variant=full&variant=single")).toEqual(of("full", "single"));
    // Other filters still apply: the whole system's failed runs.
    const failed = (await get("/api/v1/traces?experiment=exp-otlp&variant=full&outcome=failed&limit=100")).body.items;
    expect(failed).toHaveLength(2);
    expect(await ids("experiment=nope")).toEqual([]);

    // Runs without crux.variant are named as the report names them: baseline when baseline-tagged, else default.
    const [untagged, untaggedBaseline] = await ingestRuns(database, PROJECT, [
      { experimentId: "exp-untagged", taskId: "a", success: true, startMs: NOW - HOUR },
      { experimentId: "exp-untagged", taskId: "a", baseline: true, success: true, startMs: NOW - HOUR },
    ]);
    expect(await ids("experiment=exp-untagged&variant=default")).toEqual([untagged]);
    expect(await ids("experiment=exp-untagged&variant=baseline")).toEqual([untaggedBaseline]);
    const report = await get("/api/v1/experiments/exp-untagged/report");
    expect(report.body.variants.map((v: { name: string; traceIds: string[] }) => [v.name, v.traceIds])).toEqual([
      ["baseline", [untaggedBaseline]],
      ["default", [untagged]],
    ]);

    const replayId = "5d0c1f8e-0000-4000-8000-000000000001";
    const reruns = await ingestRuns(database, PROJECT, [
      { replayId, variant: "agent:planner", taskId: "task-0", trial: 0, success: true, startMs: NOW - HOUR },
      { replayId, variant: "agent:worker", taskId: "task-0", trial: 0, success: false, startMs: NOW - HOUR },
    ]);
    expect(await ids(`replay=${replayId}`)).toEqual([...reruns].sort());
    expect(await ids(`replay=${replayId}&variant=agent:worker`)).toEqual([reruns[1]]);

    const docs = await get("/api/docs/json");
    const params = docs.body.paths["/api/v1/traces"].get.parameters.map((p: { name: string }) => p.name);
    expect(params).toEqual(expect.arrayContaining(["experiment", "replay", "variant"]));

    const bad = await get("/api/v1/traces?variant=full");
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/variant.*needs 'experiment' or 'replay'/);
  });

  it("a variant whose runs carry different active agents has none of its own", async () => {
    await ingestRuns(database, PROJECT, [
      { experimentId: "exp-mixed", variant: "v", taskId: "a", trial: 0, activeAgents: ["planner"], success: true, startMs: NOW - HOUR },
      { experimentId: "exp-mixed", variant: "v", taskId: "a", trial: 1, activeAgents: ["worker"], success: true, startMs: NOW - HOUR },
      { experimentId: "exp-mixed", variant: "v", taskId: "a", trial: 1, activeAgents: ["worker"], success: false, startMs: NOW - HOUR },
      { experimentId: "exp-mixed", variant: "w", taskId: "a", activeAgents: ["worker"], success: false, startMs: NOW - HOUR },
    ]);
    const experiment = await get("/api/v1/experiments/exp-mixed");
    // Trials 0 and 1 (trial 1 sent twice is still one trial).
    expect(experiment.body).toMatchObject({ trials: 2, runs: 4 });
    expect(experiment.body.variants.map((v: { name: string; activeAgents: string[] | null }) => [v.name, v.activeAgents])).toEqual([
      ["v", null],
      ["w", ["worker"]],
    ]);
  });
});
