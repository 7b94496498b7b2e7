/**
 * FM-3.2 no or incomplete verification: a contract names a verifier and no
 * verifier step follows the last write of the final artifact.
 * FM-3.3 incorrect verification: a verifier approved and the outcome is a failure.
 * The same checks run on verifiers inferred from the trace when no contract
 * names one (inferred-verification.ts).
 */
import type { Step, TraceTrajectories } from "../../trajectory/types.ts";
import { toolMatches, type AgentContract } from "../contracts.ts";
import { finding, quote, type DetectorFinding } from "../finding.ts";

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

/**
 * The agents that verify (lowercased names) and how they are known: named by a contract, or
 * inferred from the trace (inferred-verification.ts), which lowers every confidence and says so.
 */
export interface Verifiers {
  names: Set<string>;
  /** Why each inferred verifier is one (completes "inferred from …"); null: named by contracts. */
  inferredBy: Map<string, string> | null;
}

export type VerifierCheckOptions = Omit<VerificationOptions, "contracts">;

function verifierNames(contracts: AgentContract[]): Set<string> {
  return new Set(contracts.filter((c) => c.isVerifier === true && c.agent !== "*").map((c) => c.agent.toLowerCase()));
}

const isVerifierStep = (verifiers: Set<string>, s: Step): boolean => s.agent !== null && verifiers.has(s.agent.toLowerCase());

/**
 * Contracts describe one system: they apply to a run where an agent they name took part. A run of
 * none of those agents (the single-agent baseline, another system sharing the project) has no
 * verifier to miss.
 */
export function detectVerificationFailures(t: TraceTrajectories, options: VerificationOptions): DetectorFinding[] {
  const named = new Set(options.contracts.filter((c) => c.agent !== "*").map((c) => c.agent.toLowerCase()));
  if (!t.agents.some((a) => named.has(a.name.toLowerCase()))) return [];
  return verificationFindings(t, { names: verifierNames(options.contracts), inferredBy: null }, options);
}

/** FM-3.2 and FM-3.3 for a set of verifiers, however they are known. */
export function verificationFindings(t: TraceTrajectories, verifiers: Verifiers, options: VerifierCheckOptions): DetectorFinding[] {
  if (verifiers.names.size === 0) return [];
  return [...detectMissingVerification(t, verifiers, options), ...detectIncorrectVerification(t, verifiers, options)];
}

/** "reviewer", or "reviewer (inferred from the word "reviewer" in its name; no contract names a verifier)" when inferred. */
function describeVerifiers(verifiers: Verifiers, names: readonly string[]): string {
  if (verifiers.inferredBy === null) return names.join("/");
  return names.map((n) => `${n} (inferred from ${verifiers.inferredBy?.get(n.toLowerCase()) ?? "the trace"}; no contract names a verifier)`).join("/");
}

/** Contract names as configured (lowercased); inferred verifiers as the trace spells them. */
const shownNames = (t: TraceTrajectories, v: Verifiers): string[] =>
  v.inferredBy === null ? [...v.names] : [...new Set(t.agents.map((a) => a.name).filter((n) => v.names.has(n.toLowerCase())))];

/** Confidences of a verifier named by contract; an inferred verifier's are lower. */
const MISSING = { configuredTools: 1, contract: 0.6, inferred: 0.4 };
const INCORRECT = { verdict: { contract: 0.9, inferred: 0.75 }, words: { contract: 0.7, inferred: 0.5 } };

function detectMissingVerification(t: TraceTrajectories, verifierSet: Verifiers, options: VerifierCheckOptions): DetectorFinding[] {
  const verifiers = verifierSet.names;
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
  const configured = tools !== undefined && verifierSet.inferredBy === null;
  const names = shownNames(t, verifierSet);
  const present = t.steps.some((s) => isVerifierStep(verifiers, s));
  // Say what was seen: unless artifact tools are given, the cited step only stands in for the artifact's write.
  const what =
    tools !== undefined
      ? `the last write of the final artifact (step ${lastWrite.index}, ${lastWrite.toolName ?? lastWrite.kind})`
      : lastWrite.kind === "tool"
        ? `step ${lastWrite.index} (${lastWrite.toolName ?? "tool"} by ${lastWrite.agent}), the last tool call of a non-verifier agent, taken as the final artifact's write`
        : `step ${lastWrite.index} (${lastWrite.kind} of ${lastWrite.agent}), the last output of a non-verifier agent, taken as the final artifact`;
  const evidence = present
    ? `no step by verifier ${describeVerifiers(verifierSet, names)} after ${what}`
    : `verifier ${describeVerifiers(verifierSet, verifierSet.inferredBy === null ? [...verifiers] : names)} took no step in this run; nothing checked ${what}`;
  return [
    finding({
      mode: "FM-3.2",
      agent: lastWrite.agent,
      spanId: lastWrite.spanId,
      stepIndex: lastWrite.index,
      source: configured ? "contract" : "heuristic",
      confidence: configured ? MISSING.configuredTools : verifierSet.inferredBy === null ? MISSING.contract : MISSING.inferred,
      evidence,
    }),
  ];
}

function detectIncorrectVerification(t: TraceTrajectories, verifierSet: Verifiers, options: VerifierCheckOptions): DetectorFinding[] {
  if (options.outcomeSuccess !== false) return [];
  const verifiers = verifierSet.names;
  const by = verifierSet.inferredBy === null ? "contract" : "inferred";
  const who = (s: Step): string => describeVerifiers(verifierSet, [s.agent ?? "?"]);
  const approve = options.approvalPattern ?? APPROVAL_PATTERN;
  const reject = options.rejectionPattern ?? REJECTION_PATTERN;
  const verifierSteps = t.steps.filter((s) => isVerifierStep(verifiers, s));
  // Explicit verdict attributes first (on a verifier's steps, then on its agent spans, which are
  // steps only when they have no children), then the verifier's last word.
  for (const s of [...verifierSteps].reverse()) {
    const span = t.spanById.get(s.spanId);
    for (const { key, value } of span?.content.verdicts ?? []) {
      if (APPROVING_VERDICT.test(value.trim())) return [incorrect(s, `${who(s)} set ${key}=${value} and the run failed`, INCORRECT.verdict[by])];
    }
  }
  for (const agent of t.agents.filter((a) => verifiers.has(a.name.toLowerCase()))) {
    const last = agent.steps[agent.steps.length - 1];
    if (last === undefined) continue;
    for (const id of agent.agentSpanIds) {
      const span = t.spanById.get(id);
      if (span === undefined || verifierSteps.some((s) => s.spanId === id)) continue;
      const approving = span.content.verdicts.find(({ value }) => APPROVING_VERDICT.test(value.trim()));
      if (approving !== undefined) {
        return [incorrect(last, `${who(last)} set ${approving.key}=${approving.value} on its agent span and the run failed`, INCORRECT.verdict[by])];
      }
    }
  }
  const lastSay = [...verifierSteps].reverse().find((s) => s.outputText !== null);
  if (lastSay?.outputText && approve.test(lastSay.outputText) && !reject.test(lastSay.outputText)) {
    return [incorrect(lastSay, `${who(lastSay)} approved ("${quote(lastSay.outputText, 60)}") and the run failed`, INCORRECT.words[by])];
  }
  return [];
}

function incorrect(step: Step, evidence: string, confidence: number): DetectorFinding {
  return finding({ mode: "FM-3.3", agent: step.agent, spanId: step.spanId, stepIndex: step.index, source: "heuristic", confidence, evidence });
}
