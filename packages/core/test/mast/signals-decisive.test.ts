import { describe, expect, it } from "vitest";
import { attributeDecisiveError, checkHandoffContracts, detectCascades, detectMast, detectRedundantWork, unrecoveredErrors } from "../../src/index.ts";
import type { SpanSpec } from "../trajectory/builder.ts";
import { clean, cleanSpecs, traj, withSpecs } from "../trajectory/fixtures.ts";

const failedSearch: SpanSpec = { id: "res.q", parent: "res", op: "tool", tool: "web_search", start: 30, end: 60, error: "HTTPError 503" };
const retry: SpanSpec = { id: "res.q2", parent: "res", op: "tool", tool: "web_search", start: 62, end: 68, output: "ok" };

describe("signals", () => {
  it("are silent on the clean trace", () => {
    expect(detectCascades(clean())).toEqual([]);
    expect(detectRedundantWork(clean())).toEqual([]);
  });

  it("report a cascade when later steps build on an unretried error", () => {
    const t = traj(withSpecs(cleanSpecs, [failedSearch]));
    const s = detectCascades(t);
    expect(s).toHaveLength(1);
    expect(s[0]!.kind).toBe("cascade");
    expect(s[0]!.stepIndices[0]).toBe(1);
    // the researcher continued and returned to the lead, which passed it on to the writer and reviewer
    expect(s[0]!.agents).toEqual(["researcher", "writer", "reviewer", "lead"]);
    expect(detectCascades(traj(withSpecs(cleanSpecs, [failedSearch, retry])))).toEqual([]);
  });

  it("report redundant work when two agents run the same tool with the same arguments", () => {
    const dup: SpanSpec = {
      id: "wri.q",
      parent: "wri",
      op: "tool",
      tool: "web_search",
      start: 305,
      end: 308,
      args: { query: "solar panel efficiency Germany" },
    };
    const s = detectRedundantWork(traj(withSpecs(cleanSpecs, [dup])));
    expect(s).toHaveLength(1);
    expect(s[0]).toMatchObject({ kind: "redundant_work", agents: ["researcher", "writer"], spanIds: ["res.q", "wri.q"] });
  });
});

describe("attributeDecisiveError", () => {
  it("does nothing for a trace that did not fail", () => {
    expect(attributeDecisiveError(clean(), { failed: false }).status).toBe("not_failed");
  });

  it("names the first unrecovered tool error, and not a recovered one", () => {
    const t = traj(withSpecs(cleanSpecs, [failedSearch]));
    expect(unrecoveredErrors(t).map((s) => s.spanId)).toEqual(["res.q"]);
    const r = attributeDecisiveError(t, { failed: true });
    expect(r.status).toBe("attributed");
    expect(r.decisive).toMatchObject({ method: "first_unrecovered_tool_error", agent: "researcher", spanId: "res.q", stepIndex: 1 });
    const recovered = attributeDecisiveError(traj(withSpecs(cleanSpecs, [failedSearch, retry])), { failed: true });
    expect(recovered.status).toBe("suspects");
    // The recovered error stays listed, below the rest: the run was not lost there.
    expect(recovered.suspects[0]?.spanId).not.toBe("res.q");
    const listed = recovered.suspects.find((s) => s.spanId === "res.q");
    expect(listed).toMatchObject({ agent: "researcher", evidence: [expect.stringContaining("recovered by a later success")] });
    expect(listed!.confidence).toBeLessThan(recovered.suspects[0]!.confidence);
    // Calibrated: how often a rank-1 pick led by such evidence named the right agent on the labelled sets.
    expect(recovered.suspects[0]!.confidence).toBeGreaterThan(0.1);
    expect(recovered.suspects[0]!.confidence).toBeLessThan(1);
  });

  it("prefers a failed handoff contract, and reports the other rules that fired", () => {
    const t = traj(withSpecs(cleanSpecs, [failedSearch]));
    const contracts = [
      { from: "lead", to: "reviewer", jsonSchema: { type: "object" } },
      { from: "lead", to: "*", requiredConstraints: ["cite sources"] },
    ];
    const handoff = checkHandoffContracts(t, contracts, { validate: () => ({ valid: false, errors: ["not an object"] }) });
    const r = attributeDecisiveError(t, { failed: true, handoffFindings: handoff.findings });
    expect(r.decisive).toMatchObject({ method: "first_failed_handoff_contract", agent: "lead", spanId: "rev" });
    expect(r.otherRules.map((o) => o.method)).toEqual(["first_unrecovered_tool_error", "first_dropped_constraint"]);
  });

  it("falls back to the first dropped constraint", () => {
    const t = clean();
    const handoff = checkHandoffContracts(t, [{ from: "lead", to: "*", requiredConstraints: ["cite sources"] }]);
    const r = attributeDecisiveError(t, { failed: true, handoffFindings: handoff.findings });
    expect(r.decisive).toMatchObject({ method: "first_dropped_constraint", agent: "lead", spanId: "rev" });
  });

  it("cites a repeated tool call where the loop started: the first redundant call, not the repeat that crossed k", () => {
    const search = (id: string, start: number): SpanSpec => ({
      id,
      parent: "res",
      op: "tool",
      tool: "web_search",
      start,
      end: start + 3,
      args: { query: "solar panel efficiency Germany" },
      output: "Fraunhofer ISE: average module efficiency 20%",
    });
    const t = traj(withSpecs(cleanSpecs, [search("res.q2", 61), search("res.q3", 64)]));
    const mast = detectMast(t);
    expect(mast.findings.filter((f) => f.mode === "FM-1.3").map((f) => f.spanId)).toEqual(["res.q3"]);
    const r = attributeDecisiveError(t, { failed: true, findings: mast.findings });
    expect(r.suspects[0]).toMatchObject({ agent: "researcher", spanId: "res.q2" });
    expect(r.suspects[0]!.evidence[0]).toContain("the loop started at step");
    expect(r.suspects.some((s) => s.spanId === "res.q3")).toBe(false);
  });

  it("does not take retries of a failed call for a loop (no FM-1.3): the run got past them", () => {
    const attempt = (id: string, start: number, error?: string): SpanSpec => ({
      id,
      parent: "res",
      op: "tool",
      tool: "web_search",
      start,
      end: start + 1,
      args: { query: "solar panel efficiency Germany" },
      ...(error === undefined ? { output: "Fraunhofer ISE: average module efficiency 20%" } : { error }),
    });
    const t = traj(withSpecs(cleanSpecs, [attempt("res.q0", 22, "rate limited"), attempt("res.q1", 24, "rate limited"), attempt("res.q", 30)]));
    const mast = detectMast(t);
    expect(mast.findings.filter((f) => f.mode === "FM-1.3")).toEqual([]);
    const r = attributeDecisiveError(t, { failed: true, findings: mast.findings });
    // Nothing structural is left, so the final answer's content is traced instead.
    expect(r.suspects[0]?.evidence[0]).toContain("the final answer's content");
    expect(r.suspects.find((s) => s.spanId === "res.q1")?.evidence[0]).toContain("recovered by a later success");
  });

  it("names the final answer itself when it states what no earlier step said", () => {
    const claim: SpanSpec = { ...(cleanSpecs.find((s) => s.id === "final") as SpanSpec), output: "German solar panels average 25% efficiency" };
    const r = attributeDecisiveError(traj(withSpecs(cleanSpecs, [claim])), { failed: true });
    expect(r.suspects[0]).toMatchObject({ agent: "lead", spanId: "final" });
    expect(r.suspects[0]!.evidence[0]).toContain("was first said here (25");
  });

  it("ranks suspects from findings with low confidence when no rule fires; an approval points at where the approved content came from", () => {
    const t = clean();
    const mast = detectMast(t, { agentContracts: [{ agent: "reviewer", role: "review", isVerifier: true }], outcomeSuccess: false });
    const r = attributeDecisiveError(t, { failed: true, findings: mast.findings });
    expect(r.status).toBe("suspects");
    // The reviewer approved the writer's report, whose figure and source the researcher's search first returned:
    // the earliest step the failed result depends on ranks first, the approval that missed it follows.
    // Rank-1 confidence is the calibrated rate of picks led by an approved result's origin.
    expect(r.suspects[0]).toMatchObject({ agent: "researcher", spanId: "res.q", confidence: 0.5 });
    expect(r.suspects[0]!.evidence[0]).toContain("reviewer approved a result whose content");
    const approval = r.suspects.find((s) => s.spanId === "rev.llm");
    expect(approval?.evidence[0]).toContain("FM-3.3");
    expect(approval!.confidence).toBeGreaterThan(0);
  });
});

describe("detectMast", () => {
  it("finds nothing on the clean trace", () => {
    const r = detectMast(clean(), {
      agentContracts: [
        { agent: "reviewer", role: "review", isVerifier: true, forbiddenTools: ["write_file"] },
        { agent: "researcher", role: "research", allowedTools: ["web_search"] },
      ],
      handoffContracts: [{ from: "lead", to: "writer", requiredConstraints: ["under 500 words"] }],
      outcomeSuccess: true,
    });
    expect(r.findings).toEqual([]);
    expect(r.signals).toEqual([]);
  });

  it("collects findings of several detectors in step order", () => {
    const t = traj(
      withSpecs(cleanSpecs, [
        { ...cleanSpecs[0]!, error: "MaxTurnsExceeded" },
        { id: "rev.w", parent: "rev", op: "tool", tool: "write_file", start: 805, end: 810 },
      ]),
    );
    const r = detectMast(t, { agentContracts: [{ agent: "reviewer", role: "review", forbiddenTools: ["write_file"] }] });
    expect(r.findings.map((f) => [f.mode, f.stepIndex])).toEqual([
      ["FM-1.2", 6],
      ["FM-1.5", 7],
    ]);
  });
});
