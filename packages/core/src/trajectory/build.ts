/**
 * buildTrajectories: turn one trace's normalized spans and its agent
 * attribution into ordered steps per agent, handoff records and messages.
 * Tolerant by design: orphans, several roots and clock skew are flagged,
 * never fatal (a later rebuild with more spans fixes what is missing).
 */
import type { NormalizedSpan } from "../span.ts";
import type { AgentKey, AgentUsage, TraceAttribution } from "../attribution/types.ts";
import type { AgentMessage, AgentTrajectory, BuildTrajectoriesOptions, ClockSkew, HandoffRecord, Step, StepKind, TraceTrajectories } from "./types.ts";

const DEFAULT_CLOCK_SKEW_TOLERANCE_NS = 1_000_000n;

export function compareByStart(a: { startNs: bigint; spanId: string }, b: { startNs: bigint; spanId: string }): number {
  if (a.startNs !== b.startNs) return a.startNs < b.startNs ? -1 : 1;
  return a.spanId < b.spanId ? -1 : a.spanId > b.spanId ? 1 : 0;
}

/** compareByStart on spans, without building the two keys per comparison (sorts of whole traces run it n log n times). */
export function compareSpansByStart(a: Pick<NormalizedSpan, "startTimeUnixNano" | "spanId">, b: Pick<NormalizedSpan, "startTimeUnixNano" | "spanId">): number {
  if (a.startTimeUnixNano !== b.startTimeUnixNano) return a.startTimeUnixNano < b.startTimeUnixNano ? -1 : 1;
  return a.spanId < b.spanId ? -1 : a.spanId > b.spanId ? 1 : 0;
}

/** Span operations that are steps by themselves (agent spans become "message" steps only as turns, see turnSpanIds). */
function isStepKind(op: NormalizedSpan["operation"]): op is "llm" | "tool" | "handoff" {
  return op === "llm" || op === "tool" || op === "handoff";
}

/**
 * Agent spans that are turns: the invocation produced output and nothing it
 * did is traced below it (no llm, tool, handoff or nested agent span at any
 * depth). An invocation with any of those is represented by them, never also
 * by a message step; one with nested agents is an orchestration container
 * (a group chat manager), whose output is the run's, not a turn.
 */
function turnSpanIds(spans: readonly NormalizedSpan[], spanById: Map<string, NormalizedSpan>, owned: (spanId: string) => boolean): Set<string> {
  const active = new Set<string>();
  for (const span of spans) {
    if (span.operation === "other") continue;
    let parentId = span.parentSpanId;
    while (parentId !== null && !active.has(parentId)) {
      const parent = spanById.get(parentId);
      if (parent === undefined) break;
      active.add(parentId);
      parentId = parent.parentSpanId;
    }
  }
  const turns = new Set<string>();
  for (const span of spans) {
    if (span.operation !== "agent" || active.has(span.spanId) || !owned(span.spanId)) continue;
    if (span.content.text().output !== null) turns.add(span.spanId);
  }
  return turns;
}

/** A span of kind `child` folds into an ancestor of kind `ancestor` of the same agent (tools never vanish into LLM steps; handoffs never fold). */
function foldsInto(child: StepKind, ancestor: StepKind): boolean {
  if (child === "handoff" || ancestor === "handoff") return false;
  if (child === "tool") return ancestor === "tool";
  return true;
}

// Module level, not inline: makeStep runs per step and would create (and name) each reader anew.
const inputOf = (s: NormalizedSpan): string | null => s.content.text().input;
const outputOf = (s: NormalizedSpan): string | null => s.content.text().output;
const modelOf = (s: NormalizedSpan): string | null => s.model;

export function agentNameFromKey(key: AgentKey): string {
  return key.startsWith("name:") ? key.slice("name:".length) : key;
}

export function buildTrajectories(spans: NormalizedSpan[], attribution: TraceAttribution, options: BuildTrajectoriesOptions = {}): TraceTrajectories {
  const tolerance = options.clockSkewToleranceNs ?? DEFAULT_CLOCK_SKEW_TOLERANCE_NS;
  const spanById = new Map<string, NormalizedSpan>();
  for (const span of spans) spanById.set(span.spanId, span);
  const ownerOf = (spanId: string): AgentKey | null => attribution.bySpan.get(spanId)?.agentKey ?? null;

  const usageByKey = new Map<AgentKey, AgentUsage>();
  for (const agent of attribution.agents) usageByKey.set(agent.key, agent);
  const nameOf = (key: AgentKey | null): string | null => (key === null ? null : (usageByKey.get(key)?.name ?? agentNameFromKey(key)));

  // 1. Which step spans fold into an enclosing step of the same agent.
  const foldTarget = new Map<string, string>();
  for (const span of spans) {
    if (!isStepKind(span.operation)) continue;
    // The same call traced by two conventions is one step (handoffs included).
    const duplicateOf = attribution.bySpan.get(span.spanId)?.duplicateOf ?? null;
    if (duplicateOf !== null) {
      foldTarget.set(span.spanId, duplicateOf);
      continue;
    }
    const owner = ownerOf(span.spanId);
    let top: string | null = null;
    // Spans walked so far (a cycle guard), created only when the walk goes past the parent: most stop at it.
    let seen: Set<string> | null = null;
    let parent = span.parentSpanId === null ? undefined : spanById.get(span.parentSpanId);
    while (
      parent !== undefined &&
      parent.spanId !== span.spanId &&
      !(seen?.has(parent.spanId) ?? false) &&
      parent.operation !== "agent" &&
      ownerOf(parent.spanId) === owner
    ) {
      (seen ??= new Set<string>()).add(parent.spanId);
      if (isStepKind(parent.operation) && foldsInto(span.operation, parent.operation)) top = parent.spanId;
      parent = parent.parentSpanId === null ? undefined : spanById.get(parent.parentSpanId);
    }
    if (top !== null) foldTarget.set(span.spanId, top);
  }
  // A fold target may itself fold further up; resolve to the outermost step.
  const resolveFold = (spanId: string): string => {
    let current = spanId;
    const seen = new Set<string>();
    while (foldTarget.has(current) && !seen.has(current)) {
      seen.add(current);
      current = foldTarget.get(current) as string;
    }
    return current;
  };
  const foldedInto = new Map<string, string[]>();
  for (const spanId of foldTarget.keys()) {
    const target = resolveFold(spanId);
    const list = foldedInto.get(target) ?? [];
    list.push(spanId);
    foldedInto.set(target, list);
  }

  // 2. Steps, globally ordered: llm/tool/handoff spans not folded, and agent turns.
  const turns = turnSpanIds(spans, spanById, (id) => ownerOf(id) !== null);
  const stepSpans = spans.filter((s) => (isStepKind(s.operation) && !foldTarget.has(s.spanId)) || turns.has(s.spanId));
  stepSpans.sort(compareSpansByStart);
  const steps: Step[] = stepSpans.map((span, index) => makeStep(span, index));
  const stepIndexBySpan = new Map<string, number>();
  for (const step of steps) {
    stepIndexBySpan.set(step.spanId, step.index);
    for (const folded of step.foldedSpanIds) stepIndexBySpan.set(folded, step.index);
  }

  function makeStep(span: NormalizedSpan, index: number): Step {
    const foldedIds = foldedInto.get(span.spanId);
    // Most steps fold nothing: skip building and sorting an empty list.
    const folded = foldedIds === undefined ? [] : foldedIds.map((id) => spanById.get(id)).filter((s): s is NormalizedSpan => s !== undefined);
    if (folded.length > 1) folded.sort(compareSpansByStart);
    const all = folded.length === 0 ? [span] : [span, ...folded];
    let inputTokens = 0;
    let outputTokens = 0;
    let cachedTokens = 0;
    let reportedCost: number | null = null;
    for (const s of all) {
      const counted = attribution.bySpan.get(s.spanId)?.counted;
      if (counted === undefined) continue;
      inputTokens += counted.inputTokens;
      outputTokens += counted.outputTokens;
      cachedTokens += counted.cachedTokens;
      if (counted.cost !== null) reportedCost = (reportedCost ?? 0) + counted.cost;
    }
    const errorSpan = all.find((s) => s.isError);
    const kind: StepKind = span.operation === "agent" ? "message" : (span.operation as StepKind);
    const agentKey = ownerOf(span.spanId);
    // The innermost LLM call usually carries the content and model when a wrapper does not.
    const firstWith = <T>(read: (s: NormalizedSpan) => T | null): T | null => {
      for (const s of all) {
        const v = read(s);
        if (v !== null) return v;
      }
      return null;
    };
    const reasons = new Set<string>();
    for (const s of all) for (const r of s.content.finishReasons) reasons.add(r);
    const finishReasons = [...reasons];
    return {
      index,
      spanId: span.spanId,
      agentKey,
      agent: nameOf(agentKey),
      kind,
      spanName: span.name,
      toolName: kind === "llm" || kind === "message" ? null : span.toolName,
      args: kind === "llm" || kind === "message" ? null : span.content.text().toolArgs,
      inputText: firstWith(inputOf),
      outputText: firstWith(outputOf),
      model: firstWith(modelOf),
      finishReasons,
      tokens: { inputTokens, outputTokens, cachedTokens },
      reportedCost,
      isError: errorSpan !== undefined,
      errorType: errorSpan?.errorType ?? null,
      startNs: span.startTimeUnixNano,
      endNs: span.endTimeUnixNano,
      foldedSpanIds: folded.map((s) => s.spanId),
    };
  }

  // 3. Agent trajectories: every attributed agent, even with no steps.
  const agentSpansByKey = new Map<AgentKey, NormalizedSpan[]>();
  for (const span of spans) {
    if (span.operation !== "agent") continue;
    const key = ownerOf(span.spanId);
    if (key === null) continue;
    const list = agentSpansByKey.get(key) ?? [];
    list.push(span);
    agentSpansByKey.set(key, list);
  }
  const agentKeys: AgentKey[] = attribution.agents.map((a) => a.key);
  // Each agent's steps in one pass (in step order), not one filter over all steps per agent.
  const stepsByKey = new Map<AgentKey, Step[]>(agentKeys.map((key) => [key, []]));
  for (const step of steps) {
    if (step.agentKey === null) continue;
    const own = stepsByKey.get(step.agentKey);
    if (own !== undefined) own.push(step);
    else {
      agentKeys.push(step.agentKey);
      stepsByKey.set(step.agentKey, [step]);
    }
  }
  const agents: AgentTrajectory[] = agentKeys.map((key) => {
    const usage = usageByKey.get(key);
    const agentSpans = (agentSpansByKey.get(key) ?? []).sort((a, b) => compareSpansByStart(a, b));
    const own = stepsByKey.get(key) ?? [];
    const first = agentSpans[0];
    const last = agentSpans[agentSpans.length - 1];
    const starts = [...agentSpans.map((s) => s.startTimeUnixNano), ...own.map((s) => s.startNs)];
    const ends = [...agentSpans.map((s) => s.endTimeUnixNano), ...own.map((s) => s.endNs)];
    return {
      key,
      name: usage?.name ?? agentNameFromKey(key),
      id: usage?.id ?? null,
      parentAgent: usage?.parentAgent ?? null,
      agentSpanIds: agentSpans.map((s) => s.spanId),
      steps: own,
      inputText: first === undefined ? null : first.content.text().input,
      outputText: last === undefined ? null : last.content.text().output,
      firstStartNs: usage?.firstStartNs ?? minBig(starts),
      lastEndNs: usage?.lastEndNs ?? maxBig(ends),
    };
  });

  // 4. Handoffs and messages.
  const edges = [...attribution.handoffs].sort(compareByStart);
  const handoffs: HandoffRecord[] = edges.map((edge, index) => {
    const span = spanById.get(edge.spanId);
    let message: string | null = null;
    let messageSource: HandoffRecord["messageSource"] = null;
    if (span !== undefined && span.operation === "agent") {
      message = span.content.text().input;
      if (message !== null) messageSource = "receiver_input";
    } else if (span !== undefined) {
      message = span.content.handoffMessage;
      if (message !== null) messageSource = "handoff_span";
    }
    if (message === null && edge.to !== null) {
      const receiverSpan = spans
        .filter((s) => s.operation === "agent" && nameOf(ownerOf(s.spanId)) === edge.to && s.startTimeUnixNano >= edge.startNs)
        .sort(compareSpansByStart)[0];
      message = receiverSpan === undefined ? null : receiverSpan.content.text().input;
      if (message !== null) messageSource = "receiver_input";
    }
    return {
      index,
      sender: edge.from,
      receiver: edge.to,
      spanId: edge.spanId,
      via: edge.via,
      message,
      messageSource,
      startNs: edge.startNs,
      stepIndex: stepIndexBySpan.get(edge.spanId) ?? null,
    };
  });
  const messages: AgentMessage[] = [];
  for (const h of handoffs) {
    if (h.message !== null) messages.push({ from: h.sender, to: h.receiver, text: h.message, spanId: h.spanId, timeNs: h.startNs, kind: "handoff" });
    const span = spanById.get(h.spanId);
    if (h.via === "nested_agent" && span !== undefined && span.operation === "agent") {
      const result = span.content.text().output;
      if (result !== null) messages.push({ from: h.receiver, to: h.sender, text: result, spanId: h.spanId, timeNs: span.endTimeUnixNano, kind: "return" });
    }
  }
  messages.push(...turnMessages(steps));
  messages.sort((a, b) => compareByStart({ startNs: a.timeNs, spanId: a.spanId }, { startNs: b.timeNs, spanId: b.spanId }));

  // 5. Flags.
  const clockSkew: ClockSkew[] = [];
  for (const span of spans) {
    const parent = span.parentSpanId === null ? undefined : spanById.get(span.parentSpanId);
    if (parent === undefined) continue;
    const skew = parent.startTimeUnixNano - span.startTimeUnixNano;
    if (skew > tolerance) clockSkew.push({ spanId: span.spanId, parentSpanId: parent.spanId, skewNs: skew });
  }
  const orphanSet = new Set(attribution.orphans);
  const rootCandidates = attribution.roots
    .map((id) => spanById.get(id))
    .filter((s): s is NormalizedSpan => s !== undefined)
    .sort((a, b) => {
      const orphanOrder = Number(orphanSet.has(a.spanId)) - Number(orphanSet.has(b.spanId));
      if (orphanOrder !== 0) return orphanOrder;
      return compareSpansByStart(a, b);
    });
  const root = rootCandidates[0] ?? null;
  const firstAgent = [...agents].sort((a, b) => (a.firstStartNs < b.firstStartNs ? -1 : a.firstStartNs > b.firstStartNs ? 1 : 0))[0];
  const goal = root?.runTags.goal ?? root?.content.text().input ?? firstAgent?.inputText ?? null;

  return {
    traceId: spans[0]?.traceId ?? null,
    steps,
    agents,
    handoffs,
    messages,
    flags: {
      orphans: [...attribution.orphans],
      roots: [...attribution.roots],
      multipleRoots: attribution.roots.length > 1,
      clockSkew,
      unattributedSteps: steps.filter((s) => s.agentKey === null).length,
    },
    goal,
    rootSpanId: root?.spanId ?? null,
    spans,
    spanById,
    stepIndexBySpan,
    attribution,
  };
}

/**
 * Messages between speakers of consecutive turns: each turn's text is received
 * by the next turn's speaker when the speakers differ (a group chat is
 * broadcast; the next speaker is the one who acted on it). Only message steps
 * take part: a trace with llm or tool steps has its own handoffs.
 */
function turnMessages(steps: readonly Step[]): AgentMessage[] {
  const turns = steps.filter((s) => s.kind === "message");
  const out: AgentMessage[] = [];
  for (let i = 0; i + 1 < turns.length; i++) {
    const from = turns[i] as Step;
    const to = turns[i + 1] as Step;
    if (from.outputText === null || from.agent === null || to.agent === null || from.agent === to.agent) continue;
    out.push({ from: from.agent, to: to.agent, text: from.outputText, spanId: from.spanId, timeNs: from.endNs, kind: "turn" });
  }
  return out;
}

function minBig(values: bigint[]): bigint {
  return values.reduce((m, v) => (v < m ? v : m), values[0] ?? 0n);
}
function maxBig(values: bigint[]): bigint {
  return values.reduce((m, v) => (v > m ? v : m), values[0] ?? 0n);
}
