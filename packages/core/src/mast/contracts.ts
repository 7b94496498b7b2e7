/** Agent and handoff contracts declared per project, and helpers to match them. */
import type { HandoffRecord, Step, TraceTrajectories } from "../trajectory/types.ts";

export interface AgentContract {
  /** Agent name ("*" matches any agent). */
  agent: string;
  role: string;
  /** When set, a tool outside this list is a role violation. Entries may end in "*" ("write_*"). */
  allowedTools?: string[];
  /** Tools this role may never call (a reviewer that writes code, a planner that executes). */
  forbiddenTools?: string[];
  /** The agent checks the final artifact (FM-3.2, FM-3.3). */
  isVerifier?: boolean;
  /** Check, evaluated by the injected milestone evaluator, that says the agent's job is done (FM-3.1). */
  completionCondition?: unknown;
}

export interface HandoffContract {
  /** Sender agent name ("*" matches any). */
  from: string;
  /** Receiver agent name ("*" matches any). */
  to: string;
  /** JSON Schema the handoff payload must satisfy (validated by the injected validator). */
  jsonSchema?: unknown;
  /** Constraint phrases of the task that must reach the receiver when the task or the sender's input states them. */
  requiredConstraints?: string[];
}

/** JSON Schema validation is injected (the worker passes Ajv) so core stays dependency-free. */
export type SchemaValidator = (schema: unknown, value: unknown) => { valid: boolean; errors: string[] };

export function nameMatches(pattern: string, name: string | null): boolean {
  if (pattern === "*") return true;
  return name !== null && pattern.toLowerCase() === name.toLowerCase();
}

/** Case-insensitive tool-name match with a trailing or inner "*" wildcard. */
export function toolMatches(pattern: string, tool: string): boolean {
  const escaped = pattern
    .toLowerCase()
    .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*");
  return new RegExp(`^${escaped}$`).test(tool.toLowerCase());
}

export function contractFor(contracts: AgentContract[], agent: string | null): AgentContract | undefined {
  return contracts.find((c) => c.agent !== "*" && nameMatches(c.agent, agent)) ?? contracts.find((c) => c.agent === "*");
}

/** The step a handoff finding cites: the handoff step itself, else the sender's last step before it. */
export function citedStepOf(t: TraceTrajectories, h: HandoffRecord): Step | null {
  if (h.stepIndex !== null) return t.steps[h.stepIndex] ?? null;
  let cited: Step | null = null;
  for (const step of t.steps) {
    if (step.startNs > h.startNs) break;
    if (step.agent !== null && step.agent === h.sender) cited = step;
  }
  return cited;
}
