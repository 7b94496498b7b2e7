/**
 * Handoff contracts: a handoff whose payload fails its JSON Schema (FM-1.1,
 * the handoff disobeys the specified interface) or drops a declared
 * constraint of the task (FM-2.4, information withheld from the receiver).
 * Violations are attributed to the sender.
 */
import type { HandoffRecord, TraceTrajectories } from "../../trajectory/types.ts";
import { parseMaybeJson } from "../../trajectory/canonical-json.ts";
import { citedStepOf, nameMatches, type HandoffContract, type SchemaValidator } from "../contracts.ts";
import { finding, quote, type DetectorFinding } from "../finding.ts";

export interface HandoffContractOptions {
  validate?: SchemaValidator;
  /** Task / goal text; defaults to the trajectories' goal. */
  goal?: string | null;
}

export interface DroppedConstraints {
  handoffIndex: number;
  constraints: string[];
}

export interface HandoffContractScore {
  findings: DetectorFinding[];
  /** Handoffs with a matching contract. */
  checked: number;
  /** Handoffs with at least one violation. */
  violated: number;
  dropped: DroppedConstraints[];
  /** Checks that could not run, with the reason (no content captured, no validator). */
  unchecked: Array<{ handoffIndex: number; reason: string }>;
}

/** What the sender knew before the handoff: its own input and messages it received. */
function senderContext(t: TraceTrajectories, h: HandoffRecord): string {
  const parts: string[] = [];
  const sender = t.agents.find((a) => a.name === h.sender);
  if (sender?.inputText) parts.push(sender.inputText);
  for (const m of t.messages) if (m.to === h.sender && m.timeNs <= h.startNs) parts.push(m.text);
  return parts.join("\n");
}

/** The structured payload a schema applies to: the transfer tool's full arguments, else the message. */
function payloadOf(t: TraceTrajectories, h: HandoffRecord): string | null {
  const span = t.spanById.get(h.spanId);
  if (span !== undefined && span.operation !== "agent") {
    const args = span.content.text().toolArgs;
    if (args !== null) return args;
  }
  return h.message;
}

export function checkHandoffContracts(t: TraceTrajectories, contracts: HandoffContract[], options: HandoffContractOptions = {}): HandoffContractScore {
  const goal = options.goal === undefined ? t.goal : options.goal;
  const out: HandoffContractScore = { findings: [], checked: 0, violated: 0, dropped: [], unchecked: [] };
  for (const h of t.handoffs) {
    const applicable = contracts.filter((c) => nameMatches(c.from, h.sender) && nameMatches(c.to, h.receiver));
    if (applicable.length === 0) continue;
    out.checked++;
    const cited = citedStepOf(t, h);
    const base = { agent: h.sender, spanId: h.spanId, stepIndex: cited?.index ?? null, source: "contract" as const, confidence: 1 };
    const before = out.findings.length;
    for (const contract of applicable) {
      if (contract.jsonSchema !== undefined) {
        const payload = payloadOf(t, h);
        if (options.validate === undefined) out.unchecked.push({ handoffIndex: h.index, reason: "no schema validator injected" });
        else if (payload === null) out.unchecked.push({ handoffIndex: h.index, reason: "no handoff content captured" });
        else {
          const value = parseMaybeJson(payload);
          const result = typeof value === "string" ? { valid: false, errors: ["payload is not JSON"] } : options.validate(contract.jsonSchema, value);
          if (!result.valid) {
            out.findings.push(
              finding({
                ...base,
                mode: "FM-1.1",
                evidence: `handoff ${h.sender ?? "?"} → ${h.receiver ?? "?"} fails its schema: ${quote(result.errors.join("; "), 160)}`,
              }),
            );
          }
        }
      }
      const constraints = contract.requiredConstraints ?? [];
      if (constraints.length === 0) continue;
      if (h.message === null) {
        out.unchecked.push({ handoffIndex: h.index, reason: "no handoff content captured" });
        continue;
      }
      const known = `${goal ?? ""}\n${senderContext(t, h)}`.toLowerCase();
      const message = h.message.toLowerCase();
      const dropped = constraints.filter((c) => c.trim() !== "" && known.includes(c.toLowerCase()) && !message.includes(c.toLowerCase()));
      if (dropped.length === 0) continue;
      out.dropped.push({ handoffIndex: h.index, constraints: dropped });
      out.findings.push(
        finding({
          ...base,
          mode: "FM-2.4",
          evidence: `handoff ${h.sender ?? "?"} → ${h.receiver ?? "?"} drops constraint${dropped.length > 1 ? "s" : ""} ${dropped.map((c) => `"${c}"`).join(", ")}`,
        }),
      );
    }
    if (out.findings.length > before) out.violated++;
  }
  return out;
}
