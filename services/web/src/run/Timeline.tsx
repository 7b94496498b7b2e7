/** The waterfall: one swimlane per agent, rows in view only, errors and findings marked. */
import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useEffect, useMemo, useRef } from "react";
import { formatDuration } from "../format.ts";
import type { TimelineBar, TimelineLayout } from "./timeline-layout.ts";

const rowHeight = 22;

/** One row of bars; re-rendered only when its bars or its part of the selection change. */
const TimelineRow = memo(function TimelineRow({
  start,
  lane,
  bars,
  total,
  selectedSpanId,
  onSelect,
}: {
  start: number;
  lane: string | null;
  bars: TimelineBar[];
  total: number;
  selectedSpanId: string | null;
  onSelect: (spanId: string) => void;
}) {
  return (
    <div
      className={`tl-row ${lane !== null ? "lane-start" : ""} lane-${(bars[0]?.lane ?? 0) % 2}`}
      style={{ transform: `translateY(${start}px)`, height: rowHeight }}
    >
      <div className="tl-label">{lane ?? ""}</div>
      <div className="tl-track">
        {bars.map((b) => (
          <button
            key={b.spanId}
            type="button"
            data-span-id={b.spanId}
            className={`tl-bar op-${b.operation} ${b.isError ? "error" : ""} ${b.hasFinding ? "finding" : ""} ${b.spanId === selectedSpanId ? "selected" : ""}`}
            style={{ left: `${(b.startMs / total) * 100}%`, width: `max(3px, ${(b.durationMs / total) * 100}%)` }}
            title={`${b.name} · ${formatDuration(b.durationMs)}${b.isError ? " · error" : ""}${b.hasFinding ? " · finding" : ""}`}
            aria-label={`${b.name}, ${formatDuration(b.durationMs)}${b.isError ? ", error" : ""}${b.hasFinding ? ", finding" : ""}`}
            aria-pressed={b.spanId === selectedSpanId}
            onClick={() => onSelect(b.spanId)}
          />
        ))}
      </div>
    </div>
  );
});

export const Timeline = memo(function Timeline({
  layout,
  selectedSpanId,
  onSelect,
}: {
  layout: TimelineLayout;
  selectedSpanId: string | null;
  onSelect: (spanId: string) => void;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: layout.rows.length, getScrollElement: () => scroller.current, estimateSize: () => rowHeight, overscan: 10 });
  const rowOf = useMemo(() => new Map(layout.bars.map((b) => [b.spanId, b.globalRow])), [layout]);
  const selectedRow = selectedSpanId === null ? -1 : (rowOf.get(selectedSpanId) ?? -1);
  useEffect(() => {
    if (selectedRow >= 0) virtualizer.scrollToIndex(selectedRow, { align: "auto" });
  }, [selectedRow, virtualizer]);
  const laneAt = new Map(layout.lanes.map((l) => [l.firstRow, l]));
  const total = layout.totalMs || 1;
  return (
    <div className="timeline" ref={scroller} role="group" aria-label="Timeline, one lane per agent">
      <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {virtualizer.getVirtualItems().map((item) => {
          const lane = laneAt.get(item.index);
          const bars = layout.rows[item.index]!;
          const selectedHere = selectedSpanId !== null && bars.some((b) => b.spanId === selectedSpanId) ? selectedSpanId : null;
          return (
            <TimelineRow
              key={item.index}
              start={item.start}
              lane={lane?.label ?? null}
              bars={bars}
              total={total}
              selectedSpanId={selectedHere}
              onSelect={onSelect}
            />
          );
        })}
      </div>
    </div>
  );
});
