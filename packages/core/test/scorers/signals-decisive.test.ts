import { describe, expect, it } from "vitest";
import { attributeDecisiveError, checkHandoffContracts, detectCascades, detectMast, detectRedundantWork, unrecoveredErrors } from "../../src/scorers/index.ts";
import type { SpanSpec } from "../trajectory/builder.ts";
import { clean, cleanSpecs, traj, withSpecs } from "./fixtures.ts";

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
    expect(recovered.suspects[0]).toMatchObject({ spanId: "res.q", agent: "researcher" });
    expect(recovered.suspects[0]!.confidence).toBeLessThanOrEqual(0.3);
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

  it("ranks suspects from findings with low confidence when no rule fires", () => {
    const t = clean();
    const mast = detectMast(t, { agentContracts: [{ agent: "reviewer", role: "review", isVerifier: true }], outcomeSuccess: false });
    const r = attributeDecisiveError(t, { failed: true, findings: mast.findings });
    expect(r.status).toBe("suspects");
    expect(r.suspects[0]).toMatchObject({ agent: "reviewer", spanId: "rev.llm", confidence: 0.3 });
    expect(r.suspects[0]!.evidence[0]).toContain("FM-3.3");
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
