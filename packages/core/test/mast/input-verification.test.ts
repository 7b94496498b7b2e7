import { describe, expect, it } from "vitest";
import { detectIgnoredInput, detectMast, detectPrematureTermination, detectVerificationFailures, scoreMilestones } from "../../src/index.ts";
import { clean, cleanSpecs, traj, withSpecs } from "../trajectory/fixtures.ts";

const contracts = [{ agent: "reviewer", role: "review", isVerifier: true }];

describe("detectIgnoredInput (FM-2.5)", () => {
  it("is silent on the clean trace", () => {
    expect(detectIgnoredInput(clean())).toMatchObject({ findings: [], directed: 3, ignored: 0, rate: 0 });
  });

  it("fires when the receiver's output shares nothing with the handoff message", () => {
    const t = traj(
      withSpecs(cleanSpecs, [{ id: "wri.llm", parent: "wri", op: "llm", start: 310, end: 400, output: "Here is a poem about autumn leaves" }], ["wri.save"]),
    );
    const r = detectIgnoredInput(t);
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]).toMatchObject({ mode: "FM-2.5", category: "FC2", agent: "writer", spanId: "wri.llm", stepIndex: 3, confidence: 0.6 });
    expect(r.rate).toBeCloseTo(1 / 3, 12);
  });

  it("fires when the receiver never acts after a handoff", () => {
    const t = traj([
      { id: "a", op: "agent", agent: "triage", start: 0, end: 50 },
      {
        id: "h",
        parent: "a",
        op: "handoff",
        tool: "transfer_to_billing",
        handoffTo: "billing",
        start: 10,
        end: 11,
        args: '{"message":"refund order 42"}',
        handoffMessage: "refund order 42",
      },
      { id: "b", op: "agent", agent: "billing", start: 1, end: 5 },
      { id: "b.llm", parent: "b", op: "llm", start: 2, end: 4 },
    ]);
    const r = detectIgnoredInput(t);
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]).toMatchObject({ agent: "billing", spanId: "h", confidence: 0.8 });
  });
});

describe("detectVerificationFailures (FM-3.2, FM-3.3)", () => {
  it("is silent on the clean trace, even when the outcome is a success", () => {
    expect(detectVerificationFailures(clean(), { contracts, outcomeSuccess: true })).toEqual([]);
  });

  it("FM-3.2 fires when the artifact is written again after the review", () => {
    const t = traj(
      withSpecs(cleanSpecs, [
        {
          id: "wri.save2",
          parent: "lead",
          op: "tool",
          tool: "write_file",
          start: 905,
          end: 908,
          args: '{"path":"report.md"}',
        },
      ]),
    );
    const f = detectVerificationFailures(t, { contracts, artifactTools: ["write_*"] });
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ mode: "FM-3.2", category: "FC3", agent: "lead", spanId: "wri.save2", source: "contract", confidence: 1 });
    expect(detectVerificationFailures(clean(), { contracts, artifactTools: ["write_*"] })).toEqual([]);
  });

  it("FM-3.2 fires when the verifier never ran in a run of the contracted system, saying what it saw", () => {
    const t = traj(cleanSpecs.filter((s) => !s.id.startsWith("rev")));
    const system = [{ agent: "writer", role: "write" }, ...contracts];
    const f = detectVerificationFailures(t, { contracts: system });
    expect(f.map((x) => [x.mode, x.agent, x.spanId, x.source])).toEqual([["FM-3.2", "writer", "wri.save", "heuristic"]]);
    // The cited step only stands in for the artifact's write, and the evidence says so.
    expect(f[0]!.evidence).toMatch(
      /^verifier reviewer took no step in this run; nothing checked step \d+ \(write_file by writer\), the last tool call of a non-verifier agent, taken as the final artifact's write$/,
    );
    const configured = detectVerificationFailures(t, { contracts: system, artifactTools: ["write_*"] });
    expect(configured[0]!.evidence).toMatch(
      /^verifier reviewer took no step in this run; nothing checked the last write of the final artifact \(step \d+, write_file\)$/,
    );
  });

  it("contracts apply to runs where an agent they name took part: not to a single-agent baseline", () => {
    // The single-agent baseline: one agent that fetches and answers, no reviewer, no contracted agent.
    const baseline = traj([
      { id: "root", op: "agent", agent: "assistant", start: 0, end: 100 },
      { id: "plan", parent: "root", op: "llm", model: "gpt-4o", start: 1, end: 10, tokens: { input: 10, output: 10 } },
      { id: "fetch", parent: "root", op: "tool", tool: "fetch_url", start: 11, end: 20 },
    ]);
    expect(detectVerificationFailures(baseline, { contracts })).toEqual([]);
    expect(detectVerificationFailures(baseline, { contracts: [{ agent: "writer", role: "write" }, ...contracts] })).toEqual([]);
  });

  it("FM-3.3 fires when the verifier approved and the run failed", () => {
    const f = detectVerificationFailures(clean(), { contracts, outcomeSuccess: false });
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ mode: "FM-3.3", agent: "reviewer", spanId: "rev.llm", stepIndex: 5, confidence: 0.7 });
    const rejected = traj(
      withSpecs(cleanSpecs, [{ id: "rev.llm", parent: "rev", op: "llm", start: 710, end: 800, output: "Rejected: figures are incorrect" }]),
    );
    expect(detectVerificationFailures(rejected, { contracts, outcomeSuccess: false })).toEqual([]);
  });
});

describe("detectVerificationFailures verdicts (FM-3.3)", () => {
  it("an approving verdict on a verifier step wins over its words, citing the attribute", () => {
    const verdicts = [
      { key: "crux.verdict", value: "maybe" },
      { key: "crux.verification.verdict", value: " Approved " },
    ];
    const t = traj(
      withSpecs(cleanSpecs, [
        { id: "rev.llm", parent: "rev", op: "llm", start: 710, end: 800, output: "Rejected: figures are incorrect", content: { verdicts } },
      ]),
    );
    const f = detectVerificationFailures(t, { contracts, outcomeSuccess: false });
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ mode: "FM-3.3", agent: "reviewer", spanId: "rev.llm", confidence: 0.9 });
    expect(f[0]!.evidence).toContain("crux.verification.verdict= Approved ");
  });
});

describe("a verdict on a verifier's agent span (FM-3.3)", () => {
  it("is the verifier's verdict whether or not the agent span has children", () => {
    const verdicts = [{ key: "crux.verdict", value: "pass" }];
    // The reviewer's agent span has children (its model call), and its words say nothing either way.
    const withChildren = traj(
      withSpecs(cleanSpecs, [
        { ...cleanSpecs.find((s) => s.id === "rev")!, content: { verdicts } },
        { id: "rev.llm", parent: "rev", op: "llm", start: 710, end: 800, output: "Checked the figures." },
      ]),
    );
    const f = detectVerificationFailures(withChildren, { contracts, outcomeSuccess: false });
    expect(f.map((x) => [x.mode, x.agent, x.spanId, x.confidence])).toEqual([["FM-3.3", "reviewer", "rev.llm", 0.9]]);
    expect(f[0]!.evidence).toBe("reviewer set crux.verdict=pass on its agent span and the run failed");
    // A rejecting verdict on the agent span approves nothing.
    const rejecting = traj(
      withSpecs(cleanSpecs, [
        { ...cleanSpecs.find((s) => s.id === "rev")!, content: { verdicts: [{ key: "crux.verdict", value: "fail" }] } },
        { id: "rev.llm", parent: "rev", op: "llm", start: 710, end: 800, output: "Checked the figures." },
      ]),
    );
    expect(detectVerificationFailures(rejecting, { contracts, outcomeSuccess: false })).toEqual([]);
  });
});

describe("detectPrematureTermination (FM-3.1)", () => {
  const milestones = (passing: boolean[]) =>
    scoreMilestones(
      clean(),
      passing.map((p, i) => ({ id: `m${i}`, weight: 1, check: p })),
      (c) => c,
    );

  it("is silent when every required milestone passed", () => {
    expect(detectPrematureTermination(clean(), { milestones: milestones([true, true]) })).toEqual([]);
  });

  it("fires when the run stopped on its own with required milestones unmet", () => {
    const f = detectPrematureTermination(clean(), { milestones: milestones([true, false]) });
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ mode: "FM-3.1", agent: "lead", spanId: "final", stepIndex: 6 });
    expect(f[0]!.evidence).toContain("m1");
  });

  it("never fires on a run whose outcome is success, whatever its milestones or completion conditions say", () => {
    // Milestones are required unless they say otherwise: m1 unmet on a successful run is no premature termination.
    expect(detectPrematureTermination(clean(), { milestones: milestones([true, false]), outcomeSuccess: true })).toEqual([]);
    const condition = { contracts: [{ agent: "writer", role: "write", completionCondition: "report_written" }], evaluate: () => false };
    expect(detectPrematureTermination(clean(), { ...condition, outcomeSuccess: true })).toEqual([]);
    // Through the detector table, as the pipeline runs it.
    const modes = detectMast(clean(), { milestones: milestones([true, false]), outcomeSuccess: true }).findings.map((x) => x.mode);
    expect(modes).not.toContain("FM-3.1");
    expect(detectMast(clean(), { milestones: milestones([true, false]), outcomeSuccess: null }).findings.map((x) => x.mode)).toContain("FM-3.1");
  });

  it("does not blame the run's own decision when it ended on a cap or a crash", () => {
    const capped = traj(withSpecs(cleanSpecs, [{ ...cleanSpecs[0]!, error: "MaxTurnsExceeded" }]));
    expect(detectPrematureTermination(capped, { milestones: milestones([true, false]) })).toEqual([]);
  });

  it("fires when an agent stops with its completion condition false", () => {
    const f = detectPrematureTermination(clean(), {
      contracts: [{ agent: "writer", role: "write", completionCondition: "report_written" }],
      evaluate: (check) => check !== "report_written",
    });
    expect(f.map((x) => [x.mode, x.agent, x.spanId, x.source])).toEqual([["FM-3.1", "writer", "wri.save", "contract"]]);
  });
});
