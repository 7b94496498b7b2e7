/**
 * Each agent's steps as messages: input, tool arguments, output and exception message, long content
 * collapsed. A quote a finding or a judge's verdict cites is highlighted (<mark>) in the step it
 * cites. An agent with many steps is virtualised (only the steps in view are in the page, measured
 * as they render). All content is rendered as text.
 */
import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useEffect, useRef, useState } from "react";
import type { TrajectoriesBody, TrajectoryStep } from "../types.ts";
import { splitQuotes } from "./quotes.ts";

const collapseAt = 600;
/** Up to this many steps every step is in the page (find-in-page works); beyond, only those in view. */
const virtualiseAbove = 80;

function Highlighted({ text, quotes }: { text: string; quotes: string[] }) {
  return <>{splitQuotes(text, quotes).map((p, i) => (p.quoted ? <mark key={i}>{p.text}</mark> : p.text))}</>;
}

function Field({ name, text, quotes }: { name: string; text: string; quotes: string[] }) {
  const quoted = quotes.some((q) => q.length > 0 && text.includes(q));
  const [open, setOpen] = useState(false);
  const long = text.length > collapseAt && !quoted;
  return (
    <div className={`msg-field field-${name}`}>
      <div className="msg-field-name">{name}</div>
      <pre className="msg-text">{long && !open ? `${text.slice(0, collapseAt)}…` : <Highlighted text={text} quotes={quotes} />}</pre>
      {long && (
        <button type="button" className="link" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
          {open ? "Show less" : `Show all (${text.length.toLocaleString()} characters)`}
        </button>
      )}
    </div>
  );
}

const noQuotes: string[] = [];

/** One step; re-rendered only when it is selected or unselected. */
const Step = memo(function Step({
  step,
  selected,
  quotes,
  onSelect,
  scrollIntoView,
}: {
  step: TrajectoryStep;
  selected: boolean;
  quotes: string[];
  onSelect: (spanId: string) => void;
  /** False in a virtualised list, which scrolls to the selected step itself. */
  scrollIntoView: boolean;
}) {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    if (selected && scrollIntoView) ref.current?.scrollIntoView({ block: "nearest" });
  }, [selected, scrollIntoView]);
  const t = step.text;
  const what =
    step.kind === "tool"
      ? `tool ${step.toolName ?? ""}`
      : step.kind === "llm"
        ? "model call"
        : step.kind === "handoff"
          ? `handoff ${step.toolName ?? ""}`
          : "turn";
  return (
    <article
      ref={ref}
      className={`msg ${step.isError ? "error" : ""} ${selected ? "selected" : ""}`}
      data-span-id={step.spanId}
      aria-current={selected ? "true" : undefined}
    >
      <button type="button" className="msg-head" onClick={() => onSelect(step.spanId)}>
        [{step.index}] {what} <span className="muted">{step.spanName ?? ""}</span>
        {step.isError && <span className="badge outcome failed">error</span>}
        <span className="muted"> · {step.inputTokens + step.outputTokens} tok</span>
      </button>
      {t.input && <Field name="input" text={t.input} quotes={quotes} />}
      {t.args && <Field name="arguments" text={t.args} quotes={quotes} />}
      {t.output && <Field name="output" text={t.output} quotes={quotes} />}
      {t.error && <Field name="error" text={t.error} quotes={quotes} />}
      {!t.input && !t.args && !t.output && !t.error && <p className="muted small">No content captured for this step.</p>}
    </article>
  );
});

export const Transcript = memo(function Transcript({
  trajectories,
  agent,
  onAgent,
  selectedSpanId,
  quotesByStep,
  onSelect,
}: {
  trajectories: TrajectoriesBody;
  agent: string | null;
  onAgent: (agent: string) => void;
  selectedSpanId: string | null;
  quotesByStep: Map<number, string[]>;
  onSelect: (spanId: string) => void;
}) {
  const agents = trajectories.items.map((t) => t.agent);
  const current = trajectories.items.find((t) => t.agent === agent) ?? trajectories.items[0];
  if (!current) return <p className="muted">No steps stored for this run{trajectories.scored ? "" : " yet: it is not scored"}.</p>;
  return (
    <div className="transcript">
      <label className="inline">
        Agent{" "}
        <select value={current.agent} onChange={(e) => onAgent(e.target.value)}>
          {agents.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
      </label>
      {current.steps.length > virtualiseAbove ? (
        <VirtualSteps key={current.agent} steps={current.steps} label={`Steps of ${current.agent}`} {...{ selectedSpanId, quotesByStep, onSelect }} />
      ) : (
        <div className="msgs" role="list" aria-label={`Steps of ${current.agent}`}>
          {current.steps.map((s) => (
            <div role="listitem" key={s.spanId}>
              <Step step={s} selected={s.spanId === selectedSpanId} quotes={quotesByStep.get(s.index) ?? noQuotes} onSelect={onSelect} scrollIntoView />
            </div>
          ))}
        </div>
      )}
    </div>
  );
});

function VirtualSteps({
  steps,
  label,
  selectedSpanId,
  quotesByStep,
  onSelect,
}: {
  steps: TrajectoryStep[];
  label: string;
  selectedSpanId: string | null;
  quotesByStep: Map<number, string[]>;
  onSelect: (spanId: string) => void;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: steps.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 140,
    overscan: 4,
    getItemKey: (i) => steps[i]!.spanId,
  });
  const selectedIndex = steps.findIndex((s) => s.spanId === selectedSpanId);
  useEffect(() => {
    if (selectedIndex >= 0) virtualizer.scrollToIndex(selectedIndex, { align: "auto" });
  }, [selectedIndex, virtualizer]);
  return (
    <div ref={scrollRef} className="msgs" role="list" aria-label={label} data-virtual="true">
      <div className="virtual-space" style={{ height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((item) => {
          const s = steps[item.index]!;
          return (
            <div
              role="listitem"
              key={item.key}
              data-index={item.index}
              ref={virtualizer.measureElement}
              aria-setsize={steps.length}
              aria-posinset={item.index + 1}
              className="virtual-item"
              style={{ transform: `translateY(${item.start}px)` }}
            >
              <Step step={s} selected={s.spanId === selectedSpanId} quotes={quotesByStep.get(s.index) ?? noQuotes} onSelect={onSelect} scrollIntoView={false} />
            </div>
          );
        })}
      </div>
    </div>
  );
}
