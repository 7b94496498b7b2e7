/**
 * FM-3.2 no or incomplete verification: a contract names a verifier and no
 * verifier step follows the last write of the final artifact.
 * FM-3.3 incorrect verification: a verifier approved and the outcome is a failure.
 */
import type { Step, TraceTrajectories } from "../trajectory/types.ts";
import { toolMatches, type AgentContract } from "./contracts.ts";
import { finding, quote, type Finding } from "./finding.ts";

export interface VerificationOptions {
  contracts: AgentContract[];
  /** Tools that write the final artifact ("write_file", "commit_*"); default: the last tool step of a non-verifier agent. */
  artifactTools?: string[];
  /** Outcome of the run (tag, API or judge); FM-3.3 needs false. */
  outcomeSuccess?: boolean | null;
  approvalPattern?: RegExp;
  rejectionPattern?: RegExp;
}

/** Words of a verifier approving (its last word is read when no verdict attribute is set). */
export const APPROVAL_PATTERN = /\b(approved?|approve|lgtm|looks good|verified|all tests pass(ed)?|no issues)\b/i;
export const REJECTION_PATTERN = /\b(not approved?|do not approve|reject(ed)?|fail(s|ed)?|incorrect|changes requested|needs? (work|changes)|issues? found)\b/i;
const APPROVING_VERDICT = /^(approve|approved|pass|passed|accept|accepted|ok|true|yes)$/i;

function verifierNames(contracts: AgentContract[]): Set<string> {
  return new Set(contracts.filter((c) => c.isVerifier === true && c.agent !== "*").map((c) => c.agent.toLowerCase()));
}

const isVerifierStep = (verifiers: Set<string>, s: Step): boolean => s.agent !== null && verifiers.has(s.agent.toLowerCase());

export function detectVerificationFailures(t: TraceTrajectories, options: VerificationOptions): Finding[] {
  const verifiers = verifierNames(options.contracts);
  if (verifiers.size === 0) return [];
  return [...detectMissingVerification(t, verifiers, options), ...detectIncorrectVerification(t, verifiers, options)];
}

function detectMissingVerification(t: TraceTrajectories, verifiers: Set<string>, options: VerificationOptions): Finding[] {
  const tools = options.artifactTools;
  const producing = t.steps.filter((s) => !isVerifierStep(verifiers, s) && s.agent !== null && !s.isError);
  // Without configured artifact tools: the last tool action of a worker, else the last model output or
  // turn of a non-root agent (the orchestrator's closing summary is not a new artifact; in a group chat
  // the orchestrator is the agent that opened it with the first turn).
  const rootAgent = t.rootSpanId === null ? null : (t.attribution.bySpan.get(t.rootSpanId)?.agentKey ?? null);
  const opener = t.steps.find((s) => s.kind === "message")?.agentKey ?? null;
  const said = (s: Step): boolean => s.agentKey !== rootAgent && (s.kind === "llm" || (s.kind === "message" && s.agentKey !== opener));
  const writes =
    tools !== undefined
      ? producing.filter((s) => s.toolName !== null && tools.some((p) => toolMatches(p, s.toolName as string)))
      : ((w) => (w.length > 0 ? w : producing.filter(said)))(producing.filter((s) => s.kind === "tool"));
  const lastWrite = writes[writes.length - 1];
  if (lastWrite === undefined) return [];
  const verifiedAfter =
    t.steps.some((s) => s.index > lastWrite.index && isVerifierStep(verifiers, s)) ||
    t.agents.some((a) => verifiers.has(a.name.toLowerCase()) && a.agentSpanIds.some((id) => (t.spanById.get(id)?.startTimeUnixNano ?? -1n) >= lastWrite.endNs));
  if (verifiedAfter) return [];
  const configured = tools !== undefined;
  return [
    finding({
      mode: "FM-3.2",
      agent: lastWrite.agent,
      spanId: lastWrite.spanId,
      stepIndex: lastWrite.index,
      source: configured ? "contract" : "heuristic",
      confidence: configured ? 1 : 0.6,
      evidence: `no step by verifier ${[...verifiers].join("/")} after the last write of the final artifact (step ${lastWrite.index}, ${lastWrite.toolName ?? lastWrite.kind})`,
    }),
  ];
}

function detectIncorrectVerification(t: TraceTrajectories, verifiers: Set<string>, options: VerificationOptions): Finding[] {
  if (options.outcomeSuccess !== false) return [];
  const approve = options.approvalPattern ?? APPROVAL_PATTERN;
  const reject = options.rejectionPattern ?? REJECTION_PATTERN;
  const verifierSteps = t.steps.filter((s) => isVerifierStep(verifiers, s));
  // Explicit verdict attributes first, then the verifier's last word.
  for (const s of [...verifierSteps].reverse()) {
    const span = t.spanById.get(s.spanId);
    for (const { key, value } of span?.content.verdicts ?? []) {
      if (APPROVING_VERDICT.test(value.trim())) return [incorrect(s, `${s.agent} set ${key}=${value} and the run failed`, 0.9)];
    }
  }
  const lastSay = [...verifierSteps].reverse().find((s) => s.outputText !== null);
  if (lastSay?.outputText && approve.test(lastSay.outputText) && !reject.test(lastSay.outputText)) {
    return [incorrect(lastSay, `${lastSay.agent} approved ("${quote(lastSay.outputText, 60)}") and the run failed`, 0.7)];
  }
  return [];
}

function incorrect(step: Step, evidence: string, confidence: number): Finding {
  return finding({ mode: "FM-3.3", agent: step.agent, spanId: step.spanId, stepIndex: step.index, source: "heuristic", confidence, evidence });
}
