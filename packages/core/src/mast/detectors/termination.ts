/**
 * FM-1.5 unaware of termination conditions: the run ended on a cap (max
 * turns / steps / iterations, token or time budget; tracers report it as an
 * error type, an end-reason attribute, or a "length" finish reason on the
 * last model call), or agents hand work back and forth without progress
 * (livelock: A→B→A→B...), by handoffs or, in a group chat, by turns (the
 * turn messages between consecutive speakers).
 */
import type { NormalizedSpan } from "../../span.ts";
import type { TraceTrajectories } from "../../trajectory/types.ts";
import { agentNameFromKey, compareSpansByStart } from "../../trajectory/build.ts";
import { finding, quote, type DetectorFinding } from "../finding.ts";
import { normalizeText } from "../../text/text.ts";

export interface TerminationOptions {
  /** Alternating handoffs between the same two agents that make a livelock. Default 3 (A→B→A→B). */
  livelockMinHandoffs?: number;
  /** Spans that satisfied a milestone: a livelock needs no progress in its window. */
  progressSpanIds?: string[];
}

const CAP_ERROR =
  /max[\s_-]?turns|max[\s_-]?steps|max[\s_-]?iterations|max[\s_-]?rounds|recursion[\s_-]?limit|turn[\s_-]?limit|step[\s_-]?limit|iteration[\s_-]?limit|budget|usage[\s_-]?limit|max[\s_-]?tokens?[\s_-]?exceeded|context[\s_-]?length[\s_-]?exceeded/i;
const TIME_CAP = /timeout|timed[\s_-]?out|deadline/i;
const CAP_END_REASON = /max|limit|budget|length|timeout|exceeded|cap/i;
const LENGTH_FINISH = new Set(["length", "max_tokens", "max_output_tokens", "model_length"]);

export interface CapHit {
  span: NormalizedSpan;
  reason: string;
  confidence: number;
}

function errorText(span: NormalizedSpan): string {
  // Most spans have no error at all: their text is the join of two empty strings.
  if (span.errorType === null && span.status.message === "" && span.content.exceptions.length === 0) return " ";
  const exceptionTypes = span.content.exceptions.map((e) => `${e.type} ${e.message}`);
  return [span.errorType ?? "", span.status.message, ...exceptionTypes].join(" ");
}

/** The cap a span reports, if any. */
function capOf(span: NormalizedSpan): CapHit | null {
  const text = errorText(span);
  if (CAP_ERROR.test(text)) return { span, reason: `error "${quote(text.trim(), 60)}"`, confidence: 0.9 };
  // A tool call timing out is an infrastructure error; a run-level timeout is a time budget.
  if ((span.operation === "agent" || span.operation === "other") && TIME_CAP.test(text)) {
    return { span, reason: `time budget: "${quote(text.trim(), 60)}"`, confidence: 0.8 };
  }
  if (span.operation !== "llm") {
    for (const { key, value } of span.content.endReasons) {
      if (CAP_END_REASON.test(value)) return { span, reason: `${key}=${value}`, confidence: 0.9 };
    }
  }
  return null;
}

/** The cap the run ended on, if any (used by FM-1.5 and, negated, by FM-3.1). */
export function findCap(t: TraceTrajectories): CapHit | null {
  // The earliest span (by start, then span id) reporting a cap, in one pass rather than a sort: spans that cannot be
  // earlier than the one found are not read (on a tie, the first in trace order wins, as a stable sort keeps it).
  let earliest: CapHit | null = null;
  for (const span of t.spans) {
    if (earliest !== null && compareSpansByStart(span, earliest.span) >= 0) continue;
    earliest = capOf(span) ?? earliest;
  }
  if (earliest !== null) return earliest;
  const lastLlm = [...t.steps].reverse().find((s) => s.kind === "llm");
  if (lastLlm !== undefined) {
    const capped = lastLlm.finishReasons.find((r) => LENGTH_FINISH.has(r));
    const span = t.spanById.get(lastLlm.spanId);
    if (capped !== undefined && span !== undefined) return { span, reason: `last model call finished with "${capped}"`, confidence: 0.7 };
  }
  return null;
}

function agentOf(t: TraceTrajectories, spanId: string): string | null {
  const key = t.attribution.bySpan.get(spanId)?.agentKey ?? null;
  return key === null ? null : (t.attribution.agents.find((a) => a.key === key)?.name ?? agentNameFromKey(key));
}

export function detectTerminationUnawareness(t: TraceTrajectories, options: TerminationOptions = {}): DetectorFinding[] {
  const findings: DetectorFinding[] = [];
  const cap = findCap(t);
  if (cap !== null) {
    const lastStep = t.steps[t.steps.length - 1];
    findings.push(
      finding({
        mode: "FM-1.5",
        agent: agentOf(t, cap.span.spanId),
        spanId: cap.span.spanId,
        stepIndex: t.stepIndexBySpan.get(cap.span.spanId) ?? lastStep?.index ?? null,
        source: "heuristic",
        confidence: cap.confidence,
        evidence: `run ended on a cap: ${cap.reason}`,
      }),
    );
  }
  findings.push(...detectLivelock(t, options));
  return findings;
}

/** One directed exchange: a handoff, or a turn received by the next speaker. */
interface Exchange {
  sender: string | null;
  receiver: string | null;
  message: string | null;
  spanId: string;
  stepIndex: number | null;
  startNs: bigint;
}

function detectLivelock(t: TraceTrajectories, options: TerminationOptions): DetectorFinding[] {
  const directed = t.handoffs.filter((h) => h.sender !== null && h.receiver !== null && h.sender !== h.receiver);
  const turns: Exchange[] = t.messages
    .filter((m) => m.kind === "turn")
    .map((m) => ({ sender: m.from, receiver: m.to, message: m.text, spanId: m.spanId, stepIndex: t.stepIndexBySpan.get(m.spanId) ?? null, startNs: m.timeNs }));
  return [...livelocks(t, directed, options, "handoffs"), ...livelocks(t, turns, options, "turns")];
}

function livelocks(t: TraceTrajectories, directed: readonly Exchange[], options: TerminationOptions, what: "handoffs" | "turns"): DetectorFinding[] {
  const min = Math.max(2, options.livelockMinHandoffs ?? 3);
  const progressTimes = (options.progressSpanIds ?? []).map((id) => t.spanById.get(id)?.startTimeUnixNano).filter((v): v is bigint => v !== undefined);
  const findings: DetectorFinding[] = [];
  let run: Exchange[] = [];
  const flush = (): void => {
    if (run.length >= min) {
      const first = run[0] as Exchange;
      const cited = run[min - 1] as Exchange;
      const last = run[run.length - 1] as Exchange;
      const progressed = progressTimes.some((ns) => ns >= first.startNs && ns <= last.startNs);
      const messages = run.map((h) => h.message);
      const known = messages.every((m) => m !== null);
      const distinct = (dir: string | null): number => new Set(run.filter((h) => h.sender === dir).map((h) => normalizeText(h.message ?? ""))).size;
      const newContent = known && (distinct(first.sender) > 1 || distinct(first.receiver) > 1);
      if (!progressed && !newContent) {
        findings.push(
          finding({
            mode: "FM-1.5",
            agent: cited.sender,
            spanId: cited.spanId,
            stepIndex: cited.stepIndex,
            source: "heuristic",
            confidence: known ? 0.8 : 0.5,
            evidence: `livelock: ${run.length} ${what} back and forth between ${first.sender} and ${first.receiver} without progress`,
          }),
        );
      }
    }
  };
  for (const h of directed) {
    const prev = run[run.length - 1];
    if (prev !== undefined && h.sender === prev.receiver && h.receiver === prev.sender) run.push(h);
    else {
      flush();
      run = [h];
    }
  }
  flush();
  return findings;
}
