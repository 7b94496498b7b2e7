import { loadScoringConfig, type Database } from "@crux/db";
import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT, buildTestApp } from "./harness.ts";

describe.each(testDatabases())("configuration CRUD on $name", ({ create }) => {
  let database: Database;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  const call = async (method: "GET" | "POST" | "PUT" | "DELETE", url: string, payload?: unknown) => {
    const res = await app.inject({ method, url, ...(payload === undefined ? {} : { payload: payload as object }) });
    return { status: res.statusCode, body: res.body ? res.json() : null };
  };

  beforeAll(async () => {
    database = await create();
    app = await buildTestApp(database);
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it("prices: create 201, list, get, replace, duplicate 409, delete 204, then 404; the scoring config sees them", async () => {
    const created = await call("POST", "/api/v1/prices", { model: "GPT-4o", inputPerMTok: 1, outputPerMTok: 2 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ model: "gpt-4o", inputPerMTok: 1, outputPerMTok: 2, cachedInputPerMTok: null, id: expect.any(String) });
    const id = created.body.id as string;
    expect((await call("GET", "/api/v1/prices")).body.items.filter((p: { source: string }) => p.source === "project")).toHaveLength(1);
    let config = await loadScoringConfig(database, PROJECT, null, null);
    expect(config.prices.find((p) => p.model === "gpt-4o")).toEqual({ model: "gpt-4o", inputPerMTok: 1, outputPerMTok: 2 });
    expect(config.prices.find((p) => p.model === "gpt-4o-mini")).toMatchObject({ inputPerMTok: 0.15 }); // seeded default kept

    const replaced = await call("PUT", `/api/v1/prices/${id}`, { model: "gpt-4o", inputPerMTok: 3, outputPerMTok: 4, cachedInputPerMTok: 1.5 });
    expect(replaced.status).toBe(200);
    expect((await call("GET", `/api/v1/prices/${id}`)).body).toMatchObject({ inputPerMTok: 3, cachedInputPerMTok: 1.5 });
    config = await loadScoringConfig(database, PROJECT, null, null);
    expect(config.prices.find((p) => p.model === "gpt-4o")).toEqual({ model: "gpt-4o", inputPerMTok: 3, outputPerMTok: 4, cachedInputPerMTok: 1.5 });

    const dup = await call("POST", "/api/v1/prices", { model: "gpt-4o", inputPerMTok: 1, outputPerMTok: 1 });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe("conflict");
    expect((await call("POST", "/api/v1/prices", { model: "x", inputPerMTok: -1, outputPerMTok: 1 })).status).toBe(400);

    expect((await call("DELETE", `/api/v1/prices/${id}`)).status).toBe(204);
    expect((await call("GET", `/api/v1/prices/${id}`)).status).toBe(404);
    expect((await call("DELETE", `/api/v1/prices/${id}`)).status).toBe(404);
    expect((await call("PUT", `/api/v1/prices/${id}`, { model: "gpt-4o", inputPerMTok: 3, outputPerMTok: 4 })).status).toBe(404);
  });

  it("agent and handoff contracts: a service's row wins over the project-wide one; invalid JSON Schema is 400 with Ajv's message", async () => {
    expect((await call("POST", "/api/v1/agent-contracts", { agent: "reviewer", role: "review", forbiddenTools: ["write_*"] })).status).toBe(201);
    expect((await call("POST", "/api/v1/agent-contracts", { serviceName: "svc", agent: "reviewer", role: "strict review", isVerifier: true })).status).toBe(
      201,
    );
    expect((await call("POST", "/api/v1/agent-contracts", { agent: "planner", role: "plan", completionCondition: "$count(steps) > 0" })).status).toBe(201);
    const badCondition = await call("POST", "/api/v1/agent-contracts", { agent: "x", role: "y", completionCondition: "$count(" });
    expect(badCondition.status).toBe(400);
    expect(badCondition.body.code).toBe("invalid_expression");

    const svc = await loadScoringConfig(database, PROJECT, "svc", null);
    expect(svc.agentContracts).toEqual(
      expect.arrayContaining([
        { agent: "reviewer", role: "strict review", isVerifier: true },
        { agent: "planner", role: "plan", completionCondition: "$count(steps) > 0" },
      ]),
    );
    expect(svc.agentContracts).toHaveLength(2);
    const other = await loadScoringConfig(database, PROJECT, "other", null);
    expect(other.agentContracts.find((c) => c.agent === "reviewer")).toEqual({ agent: "reviewer", role: "review", forbiddenTools: ["write_*"] });

    const schema = { type: "object", required: ["task"], properties: { task: { type: "string" } } };
    const ok = await call("POST", "/api/v1/handoff-contracts", {
      sender: "lead",
      receiver: "search",
      jsonSchema: schema,
      requiredConstraints: ["under 100 words"],
    });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ sender: "lead", receiver: "search", jsonSchema: schema, serviceName: null });
    expect(ok.body).not.toHaveProperty("from");
    // Read back and replaced in the same vocabulary.
    expect((await call("GET", `/api/v1/handoff-contracts/${ok.body.id}`)).body).toMatchObject({ sender: "lead", receiver: "search" });
    const replaced = await call("PUT", `/api/v1/handoff-contracts/${ok.body.id}`, {
      sender: "lead",
      receiver: "search",
      jsonSchema: schema,
      requiredConstraints: ["under 100 words"],
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ id: ok.body.id, sender: "lead", receiver: "search" });
    expect((await call("GET", "/api/v1/handoff-contracts")).body.items).toEqual([
      expect.objectContaining({ id: ok.body.id, sender: "lead", receiver: "search" }),
    ]);
    const bad = await call("POST", "/api/v1/handoff-contracts", { sender: "lead", receiver: "coder", jsonSchema: { type: "nope" } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("invalid_json_schema");
    expect(bad.body.message).toContain("jsonSchema: data/type");
    expect((await loadScoringConfig(database, PROJECT, "svc", null)).handoffContracts).toEqual([
      { from: "lead", to: "search", jsonSchema: schema, requiredConstraints: ["under 100 words"] },
    ]);
  });

  it("milestone sets: JSONata checked at write time; the service's set wins; requires must name ids of the set", async () => {
    const milestones = [
      { id: "plan", weight: 0.5, check: "$exists(steps[kind='llm'])" },
      { id: "ship", weight: 0.5, check: "$count(steps) > 2", requires: ["plan"] },
    ];
    expect((await call("POST", "/api/v1/milestone-sets", { name: "default", milestones })).status).toBe(201);
    const svcSet = await call("POST", "/api/v1/milestone-sets", { serviceName: "svc", name: "svc set", milestones: milestones.slice(0, 1) });
    expect(svcSet.status).toBe(201);
    expect((await loadScoringConfig(database, PROJECT, "svc", null)).milestoneSet).toEqual({ id: svcSet.body.id, milestones: milestones.slice(0, 1) });
    expect((await loadScoringConfig(database, PROJECT, "other", null)).milestoneSet?.milestones).toEqual(milestones);

    const badExpr = await call("POST", "/api/v1/milestone-sets", { serviceName: "x", name: "bad", milestones: [{ id: "a", weight: 1, check: "steps[" }] });
    expect(badExpr.status).toBe(400);
    expect(badExpr.body.code).toBe("invalid_expression");
    const badReq = await call("POST", "/api/v1/milestone-sets", {
      serviceName: "x",
      name: "bad",
      milestones: [{ id: "a", weight: 1, check: "true", requires: ["zzz"] }],
    });
    expect(badReq.status).toBe(400);
    expect(badReq.body.message).toContain("unknown milestone id 'zzz'");
    expect((await call("POST", "/api/v1/milestone-sets", { name: "again", milestones })).status).toBe(409);
  });

  it("baselines: the task's figure wins over the service's; one of taskId/serviceName is required; settings round-trip", async () => {
    expect((await call("POST", "/api/v1/baselines", { serviceName: "svc", tokens: 1000 })).status).toBe(201);
    expect((await call("POST", "/api/v1/baselines", { taskId: "t1", tokens: 400, costUsd: 0.02 })).status).toBe(201);
    expect((await loadScoringConfig(database, PROJECT, "svc", "t1")).configuredBaseline).toEqual({ tokens: 400, costUsd: 0.02 });
    expect((await loadScoringConfig(database, PROJECT, "svc", "t2")).configuredBaseline).toEqual({ tokens: 1000, costUsd: null });
    expect((await loadScoringConfig(database, PROJECT, "other", "t2")).configuredBaseline).toBeNull();
    expect((await call("POST", "/api/v1/baselines", { tokens: 5 })).status).toBe(400);
    expect((await call("POST", "/api/v1/baselines", { taskId: "t3" })).status).toBe(400);

    expect((await call("GET", "/api/v1/settings")).body).toEqual({ coordinationWeights: null, repetitionK: null });
    const settings = { coordinationWeights: { redundancy: 0.5, ignoredHandoffs: 0.25, roleViolations: 0.25 }, repetitionK: 4 };
    expect((await call("PUT", "/api/v1/settings", settings)).body).toEqual(settings);
    const config = await loadScoringConfig(database, PROJECT, null, null);
    expect(config.coordinationWeights).toEqual(settings.coordinationWeights);
    expect(config.repetitionK).toBe(4);
    expect((await call("PUT", "/api/v1/settings", { coordinationWeights: null, repetitionK: 1 })).status).toBe(400);
  });
});
