/**
 * FM-2.5 ignored other agent's input: a directed handoff whose receiver never
 * acts afterwards, or whose output (until the next handoff to it) shares no
 * content word with the handoff's message. Attributed to the receiver.
 * In a group chat (message steps), a turn is input to the next speaker: its
 * next turn sharing no content word with it is ignored input too, unless a
 * handoff carrying a message into that turn was already judged above.
 */
import type { Step, TraceTrajectories } from "../../trajectory/types.ts";
import { finding, quote, type DetectorFinding } from "../finding.ts";
import type { NormalizedSpan } from "../../span.ts";
import { contentWords, sharesContentWord } from "../../text/text.ts";

export interface IgnoredInputOptions {
  /** Messages with fewer content words than this are too short to judge lexically. Default 3. */
  minMessageWords?: number;
}

export interface IgnoredInputScore {
  findings: DetectorFinding[];
  directed: number;
  ignored: number;
  /** ignored / directed; null when there is no directed handoff. */
  rate: number | null;
}

export function detectIgnoredInput(t: TraceTrajectories, options: IgnoredInputOptions = {}): IgnoredInputScore {
  const minWords = options.minMessageWords ?? 3;
  const directed = t.handoffs.filter((h) => h.sender !== null && h.receiver !== null && h.sender !== h.receiver);
  const findings: DetectorFinding[] = [];
  // Each receiver's steps (in step order) and agent spans, gathered once rather than per handoff.
  const stepsOf = new Map<string, Step[]>();
  for (const s of t.steps) {
    if (s.agent === null) continue;
    const own = stepsOf.get(s.agent);
    if (own === undefined) stepsOf.set(s.agent, [s]);
    else own.push(s);
  }
  const spansOf = new Map<string, Array<NormalizedSpan | undefined>>();
  const agentSpansOf = (receiver: string): Array<NormalizedSpan | undefined> => {
    let spans = spansOf.get(receiver);
    if (spans === undefined) {
      spans = t.agents
        .filter((a) => a.name === receiver)
        .flatMap((a) => a.agentSpanIds)
        .map((id) => t.spanById.get(id));
      spansOf.set(receiver, spans);
    }
    return spans;
  };
  for (const h of directed) {
    const receiver = h.receiver as string;
    const nextToSame = directed.find((o) => o.receiver === receiver && o.startNs > h.startNs);
    const inWindow = (ns: bigint): boolean => ns >= h.startNs && (nextToSame === undefined || ns < nextToSame.startNs);
    const steps = (stepsOf.get(receiver) ?? []).filter((s) => inWindow(s.startNs));
    const agentSpans = agentSpansOf(receiver).filter((s) => s !== undefined && inWindow(s.startTimeUnixNano));
    const base = { agent: receiver, spanId: h.spanId, source: "heuristic" as const };
    if (steps.length === 0 && agentSpans.length === 0) {
      const present = t.agents.some((a) => a.name === receiver);
      findings.push(
        finding({
          ...base,
          mode: "FM-2.5",
          stepIndex: h.stepIndex,
          confidence: present ? 0.8 : 0.5,
          evidence: present
            ? `${receiver} never acted after the handoff from ${h.sender}`
            : `${receiver} received a handoff from ${h.sender} and has no span in the trace`,
        }),
      );
      continue;
    }
    if (h.message === null) continue;
    const said = contentWords(h.message);
    if (said.size < minWords) continue;
    // Text by text, stopping at the first shared word (the same answer as one pass over all of it).
    let captured = false;
    let shared = false;
    for (const text of producedTexts(steps, agentSpans)) {
      captured = true;
      if (sharesContentWord(said, text)) {
        shared = true;
        break;
      }
    }
    if (!captured) continue; // content not captured: cannot judge
    if (shared) continue;
    const first = steps[0] as Step | undefined;
    findings.push(
      finding({
        ...base,
        mode: "FM-2.5",
        spanId: first?.spanId ?? h.spanId,
        stepIndex: first?.index ?? h.stepIndex,
        confidence: 0.6,
        evidence: `${receiver}'s output after the handoff shares nothing with "${quote(h.message, 60)}"`,
      }),
    );
  }
  const judgedTurns = new Set(directed.filter((h) => h.message !== null).map((h) => h.spanId));
  const turns = detectIgnoredTurns(t, minWords, judgedTurns);
  findings.push(...turns.findings);
  const total = directed.length + turns.directed;
  return { findings, directed: total, ignored: findings.length, rate: total === 0 ? null : findings.length / total };
}

/** What a receiver produced after a handoff: its steps' outputs and arguments, then its agent spans' outputs. */
function* producedTexts(steps: Step[], agentSpans: Array<NormalizedSpan | undefined>): Generator<string> {
  for (const s of steps) {
    if (s.outputText !== null) yield s.outputText;
    if (s.args !== null) yield s.args;
  }
  for (const s of agentSpans) {
    const output = s === undefined ? null : s.content.text().output;
    if (output !== null) yield output;
  }
}

function detectIgnoredTurns(t: TraceTrajectories, minWords: number, judged: Set<string>): { findings: DetectorFinding[]; directed: number } {
  const findings: DetectorFinding[] = [];
  let directed = 0;
  for (const m of t.messages) {
    if (m.kind !== "turn") continue;
    const sent = t.stepIndexBySpan.get(m.spanId) ?? -1;
    // The next turn: turn messages only link consecutive turns, so it is the receiver's.
    const reply = t.steps.find((s) => s.kind === "message" && s.index > sent);
    if (reply === undefined || judged.has(reply.spanId)) continue;
    directed++;
    if (reply.outputText === null) continue;
    const said = contentWords(m.text);
    if (said.size < minWords || sharesContentWord(said, reply.outputText)) continue;
    findings.push(
      finding({
        mode: "FM-2.5",
        agent: reply.agent,
        spanId: reply.spanId,
        stepIndex: reply.index,
        source: "heuristic",
        confidence: 0.5,
        evidence: `${reply.agent}'s turn shares nothing with ${m.from}'s turn before it ("${quote(m.text, 60)}")`,
      }),
    );
  }
  return { findings, directed };
}
