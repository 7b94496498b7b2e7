import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  checkHandoffContracts,
  checkRoleContracts,
  configuredNeeds,
  detectCascades,
  detectIgnoredInput,
  detectMast,
  detectPrematureTermination,
  detectRedundantWork,
  detectRepetition,
  detectTerminationUnawareness,
  detectVerificationFailures,
  mastDetectors,
  mastModeIds,
  modeCoverage,
  scoreMilestones,
  sortFindings,
  type DetectorFinding,
  type Finding,
  type MastOptions,
  type MastResult,
} from "../../src/index.ts";
import type { TraceTrajectories } from "../../src/trajectory/types.ts";
import { labelledCases } from "../pipeline/attribution-cases.ts";
import { input } from "../pipeline/fixtures.ts";
import type { SpanSpec } from "../trajectory/builder.ts";
import { clean, cleanSpecs, traj, withSpecs } from "../trajectory/fixtures.ts";

/** detectMast as it was before the list: every detector called by hand, in this order. The list must give the same result. */
function handWired(t: TraceTrajectories, options: MastOptions = {}): MastResult {
  const agentContracts = options.agentContracts ?? [];
  const handoffContracts = checkHandoffContracts(t, options.handoffContracts ?? [], {
    ...(options.validateSchema === undefined ? {} : { validate: options.validateSchema }),
    ...(options.goal === undefined ? {} : { goal: options.goal }),
  });
  const roleContracts = checkRoleContracts(t, agentContracts);
  const ignoredInput = detectIgnoredInput(t);
  const progressSpanIds = (options.milestones?.detail ?? []).filter((d) => d.passed && d.spanId !== null).map((d) => d.spanId as string);
  // Each detector's findings carry its id, as detectMast stamps them.
  const by = (detector: string, fs: DetectorFinding[]): Finding[] => fs.map((f) => ({ ...f, detector }));
  const findings = [
    ...by("repetition", detectRepetition(t, { k: options.repetitionK ?? 3 })),
    ...by("termination", detectTerminationUnawareness(t, { livelockMinHandoffs: options.livelockMinHandoffs ?? 3, progressSpanIds })),
    ...by("role-contracts", roleContracts.findings),
    ...by("handoff-contracts", handoffContracts.findings),
    ...by("ignored-input", ignoredInput.findings),
    ...by(
      "verification",
      detectVerificationFailures(t, {
        contracts: agentContracts,
        outcomeSuccess: options.outcomeSuccess ?? null,
        ...(options.artifactTools === undefined ? {} : { artifactTools: options.artifactTools }),
      }),
    ),
    ...by(
      "premature-termination",
      detectPrematureTermination(t, {
        milestones: options.milestones ?? null,
        contracts: agentContracts,
        ...(options.evaluate === undefined ? {} : { evaluate: options.evaluate }),
      }),
    ),
  ];
  return { findings: sortFindings(findings), signals: [...detectCascades(t), ...detectRedundantWork(t)], handoffContracts, roleContracts, ignoredInput };
}

const { validateSchema, evaluateMilestone } = input([]);
const evaluate = evaluateMilestone as (check: unknown, t: TraceTrajectories) => ReturnType<typeof evaluateMilestone>;
const search = (id: string, start: number): SpanSpec => ({
  id,
  parent: "res",
  op: "tool",
  tool: "web_search",
  start,
  end: start + 5,
  args: { query: "solar" },
  output: "no results",
});
const reviewer = { agent: "reviewer", role: "review", isVerifier: true, forbiddenTools: ["write_file"] };

function cases(): Array<{ name: string; t: TraceTrajectories; options: MastOptions }> {
  const repeated = traj(withSpecs(cleanSpecs, [search("res.q", 30), search("r2", 105), search("r3", 120)]));
  const unmet = clean();
  return [
    { name: "clean, no configuration", t: clean(), options: {} },
    {
      name: "clean, every contract",
      t: clean(),
      options: {
        agentContracts: [reviewer, { agent: "researcher", role: "research", allowedTools: ["web_search"] }],
        handoffContracts: [{ from: "lead", to: "writer", requiredConstraints: ["under 500 words"] }],
        outcomeSuccess: true,
      },
    },
    {
      name: "cap and forbidden tool",
      t: traj(
        withSpecs(cleanSpecs, [
          { ...cleanSpecs[0]!, error: "MaxTurnsExceeded" },
          { id: "rev.w", parent: "rev", op: "tool", tool: "write_file", start: 805, end: 810 },
        ]),
      ),
      options: { agentContracts: [reviewer] },
    },
    { name: "repetition at k=3 and k=2", t: repeated, options: { repetitionK: 2 } },
    { name: "verifier never ran", t: traj(cleanSpecs.filter((s) => !s.id.startsWith("rev"))), options: { agentContracts: [reviewer] } },
    {
      name: "artifact written again after the review",
      t: traj(
        withSpecs(cleanSpecs, [
          {
            id: "wri.save2",
            parent: "lead",
            op: "tool",
            tool: "write_file",
            start: 905,
            end: 908,
            args: { path: "report.md" },
          },
        ]),
      ),
      options: { agentContracts: [reviewer], artifactTools: ["write_*"] },
    },
    { name: "approving verifier on a failed run", t: clean(), options: { agentContracts: [reviewer], outcomeSuccess: false } },
    {
      name: "required milestone unmet, completion condition false",
      t: unmet,
      options: {
        milestones: scoreMilestones(unmet, [{ id: "published", weight: 1, check: "no-such-span" }], evaluate),
        agentContracts: [{ agent: "writer", role: "write", completionCondition: "no-such-span" }],
        evaluate,
      },
    },
    ...labelledCases.map((c) => ({
      name: c.name,
      t: traj(c.specs),
      options: { agentContracts: c.agentContracts, handoffContracts: c.handoffContracts, validateSchema, outcomeSuccess: false },
    })),
  ];
}

const detectorsDir = fileURLToPath(new URL("../../src/mast/detectors/", import.meta.url));
const detectorFiles = readdirSync(detectorsDir).filter((f) => f.endsWith(".ts"));
/** Exported detect…/check… functions of every detector file. */
const detectorFunctions = detectorFiles.flatMap((f) =>
  [...readFileSync(path.join(detectorsDir, f), "utf8").matchAll(/^export function ((?:detect|check)[A-Z]\w*)/gm)].map((m) => m[1] as string),
);

/** The (mode, detector file, needs) rows of docs/failure-modes.md §3. */
function documentedDetectors(): Array<{ mode: string; id: string; needsNothing: boolean }> {
  const doc = readFileSync(fileURLToPath(new URL("../../../../docs/failure-modes.md", import.meta.url)), "utf8");
  const section = doc.slice(doc.indexOf("## 3."), doc.indexOf("## 4."));
  return section
    .split("\n")
    .filter((line) => line.startsWith("| FM-"))
    .map((line) => line.split("|").map((c) => c.trim()))
    .map((cols) => ({
      mode: cols[1] as string,
      id: (cols[2] as string).replace(/`/g, "").replace(/\.ts$/, ""),
      needsNothing: (cols[5] as string).startsWith("nothing"),
    }));
}

describe("the detector list", () => {
  it("has each detector once, under a unique id", () => {
    const ids = mastDetectors.map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length);
    // One file per detector, named by its id: a finding's detector leads to its file.
    expect(detectorFiles.map((f) => f.replace(/\.ts$/, "")).sort()).toEqual([...ids].sort());
    expect(detectorFunctions.length).toBeGreaterThanOrEqual(9);
    // A detector file whose function no entry calls, or that two entries call, fails here.
    for (const fn of detectorFunctions) {
      const callers = mastDetectors.filter((d) => new RegExp(`\\b${fn}\\b`).test(d.run.toString())).map((d) => d.id);
      expect(callers, fn).toHaveLength(1);
    }
  });

  it("agrees with docs/failure-modes.md §3: the same (mode, detector) pairs, and which need no configuration", () => {
    for (const d of mastDetectors) {
      const modes = d.modes.map((m) => m.mode);
      expect(new Set(modes).size, d.id).toBe(modes.length);
      for (const m of modes) expect(mastModeIds).toContain(m);
      expect(modes.length + d.signals.length, d.id).toBeGreaterThan(0);
    }
    const listed = mastDetectors.flatMap((d) => d.modes.map((m) => ({ mode: m.mode as string, id: d.id, needsNothing: m.needsConfig.length === 0 })));
    const byKey = (xs: Array<{ mode: string; id: string }>) => [...xs].sort((a, b) => `${a.mode} ${a.id}`.localeCompare(`${b.mode} ${b.id}`));
    expect(documentedDetectors().length).toBeGreaterThanOrEqual(9);
    expect(byKey(listed)).toEqual(byKey(documentedDetectors()));
    const signals = mastDetectors.flatMap((d) => d.signals);
    expect(new Set(signals).size).toBe(signals.length);
  });

  it("lets only config-free heuristics stand down, each for what another detector of its mode needs", () => {
    const entries = mastDetectors.flatMap((d) => d.modes.map((m) => ({ id: d.id, ...m })));
    const standing = entries.filter((e) => (e.standsDownFor ?? []).length > 0);
    expect(standing.map((e) => `${e.id} ${e.mode}`).sort()).toEqual(["inferred-verification FM-3.2", "inferred-verification FM-3.3", "premature-stop FM-3.1"]);
    for (const e of standing) {
      expect(e.needsConfig, e.id).toEqual([]);
      const others = entries.filter((o) => o.mode === e.mode && o.id !== e.id).flatMap((o) => o.needsConfig);
      for (const need of e.standsDownFor ?? []) expect(others, `${e.id} ${e.mode}`).toContain(need);
    }
  });
});

describe("detectMast over the list", () => {
  const all = cases();

  // The detectors that were wired by hand; one added later runs in detectMast but not here.
  const handWiredIds = [
    "repetition",
    "termination",
    "role-contracts",
    "handoff-contracts",
    "ignored-input",
    "verification",
    "premature-termination",
    "cascade",
    "redundant-work",
  ];
  const handWiredPart = mastDetectors.filter((d) => handWiredIds.includes(d.id));

  it("still holds every detector that was wired by hand", () => {
    expect(handWiredPart.map((d) => d.id)).toEqual(handWiredIds);
  });

  it.each(all.map((c) => [c.name, c] as const))("gives what the hand-wired detectors gave: %s", (_name, c) => {
    expect(detectMast(c.t, c.options, handWiredPart)).toEqual(handWired(c.t, c.options));
  });

  it("the fixtures exercise every code mode and both signals (the comparison is not vacuous)", () => {
    const results = all.map((c) => detectMast(c.t, c.options, handWiredPart));
    const modes = new Set(results.flatMap((r) => r.findings.map((f) => f.mode)));
    expect([...modes].sort()).toEqual(["FM-1.1", "FM-1.2", "FM-1.3", "FM-1.5", "FM-2.4", "FM-2.5", "FM-3.1", "FM-3.2", "FM-3.3"]);
    const signals = new Set(results.flatMap((r) => r.signals.map((s) => s.kind)));
    expect([...signals].sort()).toEqual(["cascade", "redundant_work"]);
  });
});

describe("configuredNeeds and modeCoverage", () => {
  const none = { agentContracts: [], handoffContracts: [], milestones: null };

  it("counts a configuration only where its detector can fire", () => {
    expect(configuredNeeds(none)).toEqual(new Set());
    expect(
      configuredNeeds({
        agentContracts: [
          { agent: "*", role: "any", isVerifier: true, forbiddenTools: [] },
          { agent: "lead", role: "lead" },
        ],
        handoffContracts: [{ from: "a", to: "b", requiredConstraints: ["  "] }],
        milestones: [{ id: "m", weight: 1, check: "x", required: false }],
      }),
    ).toEqual(new Set());
    expect(
      configuredNeeds({
        agentContracts: [
          { agent: "reviewer", role: "review", isVerifier: true, allowedTools: [] },
          { agent: "writer", role: "write", completionCondition: "done" },
        ],
        handoffContracts: [{ from: "a", to: "b", jsonSchema: { type: "object" }, requiredConstraints: ["under 500 words"] }],
        milestones: [{ id: "m", weight: 1, check: "x" }],
      }),
    ).toEqual(
      new Set([
        "agentContract.tools",
        "agentContract.isVerifier",
        "agentContract.completionCondition",
        "handoffContract.jsonSchema",
        "handoffContract.requiredConstraints",
        "milestoneSet.required",
      ]),
    );
  });

  it("lists every mode: config-free detectors measure, the others say what they need", () => {
    const coverage = modeCoverage(new Set());
    expect(coverage.map((c) => c.mode)).toEqual([...mastModeIds]);
    const byMode = Object.fromEntries(coverage.map((c) => [c.mode, c]));
    expect(byMode["FM-1.3"]).toEqual({ mode: "FM-1.3", measured: true, detectors: ["repetition"], reason: null });
    // Derived from the list, so a detector added later changes the expectation with it.
    const covering = (mode: string) => mastDetectors.flatMap((d) => d.modes.filter((m) => m.mode === mode));
    const undetected = mastModeIds.filter((m) => covering(m).length === 0);
    expect(undetected.length).toBeGreaterThan(0);
    for (const mode of undetected) expect(byMode[mode]).toEqual({ mode, measured: false, detectors: [], reason: "no detector" });
    // Verification and premature termination have config-free heuristics next to their contract-based detectors.
    expect(byMode["FM-3.2"]).toEqual({ mode: "FM-3.2", measured: true, detectors: ["inferred-verification", "error-propagation"], reason: null });
    expect(byMode["FM-3.1"]).toEqual({ mode: "FM-3.1", measured: true, detectors: ["premature-stop"], reason: null });
    expect(byMode["FM-1.2"]).toEqual({
      mode: "FM-1.2",
      measured: false,
      detectors: [],
      reason: "needs an agent contract with allowedTools or forbiddenTools; none configured for this project",
    });
    const configFree = mastModeIds.filter((m) => covering(m).some((c) => c.needsConfig.length === 0));
    expect(configFree).toEqual(expect.arrayContaining(["FM-1.3", "FM-1.5", "FM-2.5", "FM-3.1", "FM-3.2", "FM-3.3"]));
    expect(coverage.filter((c) => c.measured).map((c) => c.mode)).toEqual(configFree);

    const withVerifier = modeCoverage(new Set(["agentContract.isVerifier", "agentContract.tools"]), 'service "svc"');
    const verified = mastModeIds.filter((m) => configFree.includes(m) || m === "FM-1.2");
    expect(withVerifier.filter((c) => c.measured).map((c) => c.mode)).toEqual(verified);
    // The inferred verifiers stand down for a verifier contract; the cascade heuristic does not.
    expect(withVerifier.find((c) => c.mode === "FM-3.3")?.detectors).toEqual(["verification"]);
    expect(withVerifier.find((c) => c.mode === "FM-3.2")?.detectors).toEqual(["verification", "error-propagation"]);
    expect(withVerifier.find((c) => c.mode === "FM-1.1")?.reason).toBe('needs a handoff contract with a jsonSchema; none configured for service "svc"');
  });
});
