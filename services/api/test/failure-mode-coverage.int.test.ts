/**
 * Failure-mode rates say which modes anything measures (docs/metrics.md §11): a mode with no
 * detector, or whose detector needs configuration the project lacks, is unknown (rate null),
 * never 0; configuring what a detector needs turns its modes into measured ones.
 */
import { mastDetectors, mastModeIds } from "@crux/core";
import { JudgeVerdictResult } from "@crux/contracts";
import { insertVerdict, persistTraceScores, schema, type Database } from "@crux/db";
import { testDatabases } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOUR, NOW, PROJECT, buildTestApp } from "./harness.ts";
import { hexTraceId, scoreRecord } from "./score-records.ts";

// Derived from the detector list, so a detector added later changes these with it.
const covering = (mode: string) => mastDetectors.flatMap((d) => d.modes.filter((m) => m.mode === mode));
const undetected = mastModeIds.filter((m) => covering(m).length === 0);
const configFree = mastModeIds.filter((m) => covering(m).some((c) => c.needsConfig.length === 0));

interface Rate {
  mode: string;
  numerator: number;
  denominator: number;
  rate: number | null;
  measured: boolean;
  detectors: string[];
  reason: string | null;
}

describe.each(testDatabases())("failure-mode coverage on $name", ({ create }) => {
  let database: Database;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  const rates = async (query = ""): Promise<Record<string, Rate>> => {
    const res = await app.inject({ method: "GET", url: `/api/v1/metrics/failure-modes${query}` });
    expect(res.statusCode).toBe(200);
    return Object.fromEntries((res.json().rates as Rate[]).map((r) => [r.mode, r]));
  };
  const post = async (url: string, payload: object) => {
    const res = await app.inject({ method: "POST", url, payload });
    expect(res.statusCode, res.body).toBe(201);
  };

  beforeAll(async () => {
    database = await create();
    app = await buildTestApp(database);
    // Two scored traces without a single finding, in two services.
    await persistTraceScores(database, PROJECT, scoreRecord({ n: 1, startMs: NOW - HOUR, agents: [{ agent: "lead", input: 10, output: 5 }] }));
    await persistTraceScores(
      database,
      PROJECT,
      scoreRecord({ n: 2, startMs: NOW - 2 * HOUR, service: "other", agents: [{ agent: "lead", input: 10, output: 5 }] }),
    );
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it("lists every mode; no detector and no configuration give null with the reason, a config-free detector (or heuristic) gives 0", async () => {
    const byMode = await rates();
    expect(Object.keys(byMode)).toEqual([...mastModeIds]);
    expect(undetected.length).toBeGreaterThan(0);
    for (const mode of undetected) {
      expect(byMode[mode], mode).toEqual({
        group: null,
        mode,
        category: `FC${mode.slice(3, 4)}`,
        numerator: 0,
        denominator: 2,
        rate: null,
        measured: false,
        detectors: [],
        reason: "no detector",
        validated: true,
        validationReason: null,
      });
    }
    expect(byMode["FM-1.3"]).toEqual({
      group: null,
      mode: "FM-1.3",
      category: "FC1",
      numerator: 0,
      denominator: 2,
      rate: 0,
      measured: true,
      detectors: ["repetition"],
      reason: null,
      validated: true,
      validationReason: null,
    });
    expect(byMode["FM-1.2"]).toEqual({
      group: null,
      mode: "FM-1.2",
      category: "FC1",
      numerator: 0,
      denominator: 2,
      rate: null,
      measured: false,
      detectors: [],
      reason: "needs an agent contract with allowedTools or forbiddenTools; none configured for this project",
      validated: true,
      validationReason: null,
    });
    // Verification and premature termination: config-free heuristics measure them until a contract or milestones do.
    expect(byMode["FM-3.2"]).toEqual({
      group: null,
      mode: "FM-3.2",
      category: "FC3",
      numerator: 0,
      denominator: 2,
      rate: 0,
      measured: true,
      detectors: ["inferred-verification", "error-propagation"],
      reason: null,
      validated: true,
      validationReason: null,
    });
    expect(byMode["FM-3.3"]).toMatchObject({ rate: 0, measured: true, detectors: ["inferred-verification"] });
    expect(byMode["FM-3.1"]).toMatchObject({ rate: 0, measured: true, detectors: ["premature-stop"] });
    const measured = Object.values(byMode)
      .filter((r) => r.measured)
      .map((r) => r.mode);
    expect(measured).toEqual(configFree);
    expect(measured).toEqual(["FM-1.3", "FM-1.5", "FM-2.5", "FM-3.1", "FM-3.2", "FM-3.3"]);
    for (const r of Object.values(byMode)) expect(r.rate === null, r.mode).toBe(!r.measured);
  });

  it("a contract that a detector needs turns its modes measured; one without the needed field does not", async () => {
    // A contract with forbidden tools only: verification is still the inferred verifiers' (no verifier contract).
    await post("/api/v1/agent-contracts", { agent: "coder", role: "code", forbiddenTools: ["deploy"] });
    let byMode = await rates();
    expect(byMode["FM-1.2"]).toMatchObject({ rate: 0, measured: true, detectors: ["role-contracts"], reason: null });
    expect(byMode["FM-3.3"]).toMatchObject({ rate: 0, measured: true, detectors: ["inferred-verification"] });

    // A verifier contract: the contract's detector measures verification, the inferred verifiers stand down.
    await post("/api/v1/agent-contracts", { agent: "reviewer", role: "review", isVerifier: true });
    byMode = await rates();
    for (const [mode, detectors] of [
      ["FM-3.2", ["verification", "error-propagation"]],
      ["FM-3.3", ["verification"]],
    ] as const) {
      expect(byMode[mode], mode).toEqual({
        group: null,
        mode,
        category: `FC${mode.slice(3, 4)}`,
        numerator: 0,
        denominator: 2,
        rate: 0,
        measured: true,
        detectors,
        reason: null,
        validated: true,
        validationReason: null,
      });
    }
  });

  it("a service's own configuration measures that service only; the coverage is listed whatever the grouping", async () => {
    await post("/api/v1/handoff-contracts", { serviceName: "other", sender: "lead", receiver: "*", jsonSchema: { type: "object" } });
    expect((await rates())["FM-1.1"]).toMatchObject({ rate: 0, measured: true, detectors: ["handoff-contracts"] });
    expect((await rates("?service=other"))["FM-1.1"]).toMatchObject({ numerator: 0, denominator: 1, rate: 0, measured: true });
    expect((await rates("?service=svc"))["FM-1.1"]).toMatchObject({
      numerator: 0,
      denominator: 1,
      rate: null,
      measured: false,
      reason: 'needs a handoff contract with a jsonSchema; none configured for service "svc"',
      validated: true,
      validationReason: null,
    });

    await post("/api/v1/milestone-sets", { name: "done", milestones: [{ id: "answered", weight: 1, check: "$count(steps) > 0" }] });
    const res = await app.inject({ method: "GET", url: "/api/v1/metrics/failure-modes?groupBy=agent" });
    expect(res.json().rates).toEqual([]); // no finding: no (agent, mode) pair
    const coverage = res.json().coverage as Array<{ mode: string; measured: boolean; detectors: string[] }>;
    expect(coverage.map((c) => c.mode)).toHaveLength(14);
    // The milestone set measures FM-3.1 now; the premature-stop heuristic stands down.
    expect(coverage.find((c) => c.mode === "FM-3.1")).toEqual({ mode: "FM-3.1", measured: true, detectors: ["premature-termination"], reason: null });
    // Configured by now: tools, a verifier, a schema (service "other"), a milestone set; no required constraints (FM-2.4).
    expect(coverage.filter((c) => !c.measured).map((c) => c.mode)).toEqual(mastModeIds.filter((m) => m === "FM-2.4" || undetected.includes(m)));
  });
  it("a judge's rate rests on the judge: one verdict with no finding on 1 of 3 traces gives 0 over 1, not validated without labels", async () => {
    await persistTraceScores(database, PROJECT, scoreRecord({ n: 3, startMs: NOW - 3 * HOUR, agents: [{ agent: "lead", input: 10, output: 5 }] }));
    const before = await rates();
    expect(before[undetected[0]!]).toMatchObject({ rate: null, measured: false });
    const result = JudgeVerdictResult.parse({
      kind: "mast-checklist",
      promptVersion: 1,
      provider: "anthropic",
      model: "claude-test",
      findings: [],
      attribution: null,
      outcome: null,
      omitted: [],
      rejected: [],
      selfPreferenceWarning: null,
    });
    const verdict = { producerId: "judge.mast-checklist", producerVersion: 1, model: "judge-model", inputHash: "h1", status: "succeeded" as const, result };
    // The verdict's copy of the trace's start and service comes from its traces row.
    const startNs = BigInt(NOW - HOUR) * 1_000_000n;
    await database.db.insert(schema.traces).values({
      projectId: PROJECT,
      traceId: hexTraceId(1),
      serviceName: "svc",
      startNs,
      endNs: startNs + 1_000n,
      spanCount: 1,
      errorCount: 0,
      llmCalls: 0,
      toolCalls: 0,
      rawInputTokens: 0,
      rawOutputTokens: 0,
      hasError: false,
      dirty: false,
    });
    expect(await insertVerdict(database, PROJECT, hexTraceId(1), verdict)).toBe(true);
    const after = await rates();
    for (const mode of undetected) {
      // Only the judge measures it: counted over the one trace it read, and not validated (no label exists).
      expect(after[mode]).toMatchObject({ numerator: 0, denominator: 1, rate: 0, measured: true, validated: false });
      expect((after[mode] as Rate & { validationReason: string }).validationReason).toContain("judge.mast-checklist on");
    }
    // A mode code measures keeps every scored trace as its denominator, and needs no label.
    expect(after[configFree[0]!]).toMatchObject({ denominator: 3, validated: true });
  });
});
