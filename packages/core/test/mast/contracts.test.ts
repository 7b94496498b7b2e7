import { describe, expect, it } from "vitest";
import { checkHandoffContracts, checkRoleContracts, type SchemaValidator } from "../../src/index.ts";
import type { SpanSpec } from "../trajectory/builder.ts";
import { clean, cleanSpecs, traj, withSpecs } from "../trajectory/fixtures.ts";

const roles = [
  { agent: "researcher", role: "research", allowedTools: ["web_*"] },
  { agent: "reviewer", role: "review", forbiddenTools: ["write_file", "exec_*"], isVerifier: true },
  { agent: "writer", role: "write", allowedTools: ["write_file"] },
];

/** A tiny validator for tests: checks "required" keys only (the worker injects Ajv). */
const requiredOnly: SchemaValidator = (schema, value) => {
  const required = (schema as { required?: string[] }).required ?? [];
  const obj = (value ?? {}) as Record<string, unknown>;
  const missing = required.filter((k) => !(k in obj));
  return { valid: missing.length === 0, errors: missing.map((k) => `missing ${k}`) };
};

describe("checkRoleContracts (FM-1.2)", () => {
  it("is silent on the clean trace", () => {
    const r = checkRoleContracts(clean(), roles);
    expect(r.findings).toEqual([]);
    // researcher 2 + writer 2 + reviewer 1 steps are covered
    expect(r).toMatchObject({ checkedSteps: 5, violatingSteps: 0, rate: 0 });
  });

  it("fires when the reviewer writes a file and when the researcher uses a tool outside its list", () => {
    const t = traj(
      withSpecs(cleanSpecs, [
        { id: "rev.w", parent: "rev", op: "tool", tool: "write_file", start: 805, end: 810 },
        { id: "res.x", parent: "res", op: "tool", tool: "python_exec", start: 101, end: 102 },
      ]),
    );
    const r = checkRoleContracts(t, roles);
    expect(r.findings.map((f) => [f.mode, f.agent, f.spanId, f.source, f.confidence, f.category])).toEqual([
      ["FM-1.2", "researcher", "res.x", "contract", 1, "FC1"],
      ["FM-1.2", "reviewer", "rev.w", "contract", 1, "FC1"],
    ]);
    expect(r.rate).toBeCloseTo(2 / 7, 12);
  });
});

describe("checkHandoffContracts", () => {
  const constraintContract = [{ from: "lead", to: "*", requiredConstraints: ["under 500 words", "cite sources"] }];

  it("is silent when every handoff carries the declared constraints", () => {
    const r = checkHandoffContracts(clean(), [{ from: "lead", to: "writer", requiredConstraints: ["under 500 words", "cite sources"] }]);
    expect(r.findings).toEqual([]);
    expect(r.checked).toBe(1);
  });

  it("flags a constraint dropped from a handoff (FM-2.4), attributed to the sender", () => {
    const r = checkHandoffContracts(clean(), constraintContract);
    // the reviewer handoff ("Review report.md ...") drops both constraints
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]).toMatchObject({ mode: "FM-2.4", category: "FC2", agent: "lead", spanId: "rev", source: "contract", confidence: 1 });
    expect(r.dropped).toEqual([{ handoffIndex: 2, constraints: ["under 500 words", "cite sources"] }]);
    expect(r.violated).toBe(1);
  });

  it("does not call a constraint dropped when neither the task nor the sender stated it", () => {
    const r = checkHandoffContracts(clean(), [{ from: "lead", to: "*", requiredConstraints: ["in French"] }]);
    expect(r.findings).toEqual([]);
  });

  it("validates the transfer payload with the injected schema validator (FM-1.1)", () => {
    const specs: SpanSpec[] = [
      { id: "a", op: "agent" as const, agent: "triage", start: 0, end: 10, input: "refund order 42" },
      {
        id: "h",
        parent: "a",
        op: "handoff" as const,
        tool: "transfer_to_billing",
        handoffTo: "billing",
        start: 2,
        end: 3,
        args: '{"message":"refund it"}',
        handoffMessage: "refund it",
      },
      { id: "b", op: "agent" as const, agent: "billing", start: 4, end: 9 },
    ];
    const contract = [{ from: "triage", to: "billing", jsonSchema: { required: ["orderId", "message"] } }];
    const r = checkHandoffContracts(traj(specs), contract, { validate: requiredOnly });
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]).toMatchObject({ mode: "FM-1.1", agent: "triage", spanId: "h", stepIndex: 0, source: "contract" });
    expect(r.findings[0]!.evidence).toContain("missing orderId");
    const fixed: SpanSpec[] = specs.map((s) => (s.id === "h" ? { ...s, args: '{"message":"refund it","orderId":42}', handoffMessage: "refund it" } : s));
    expect(checkHandoffContracts(traj(fixed), contract, { validate: requiredOnly }).findings).toEqual([]);
    expect(checkHandoffContracts(traj(specs), contract).unchecked).toEqual([{ handoffIndex: 0, reason: "no schema validator injected" }]);
  });
});
