/** The span tree: virtualised, keyboard navigable (arrows, Home/End, Enter), the selection kept visible. */
import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { formatDuration } from "../format.ts";
import { ancestorsOf, visibleTreeRows, type SpanIndex } from "./spans.ts";

const rowHeight = 26;

export const SpanTree = memo(function SpanTree({
  index,
  selectedSpanId,
  findingSpanIds,
  onSelect,
}: {
  index: SpanIndex;
  selectedSpanId: string | null;
  findingSpanIds: ReadonlySet<string>;
  onSelect: (spanId: string) => void;
}) {
  const [collapsed, setCollapsed] = useState<Set<string>>(() => new Set());
  // A selection made elsewhere opens its ancestors, so the selected span is in the tree.
  useEffect(() => {
    if (selectedSpanId === null) return;
    const hidden = ancestorsOf(index, selectedSpanId).filter((id) => collapsed.has(id));
    if (hidden.length > 0)
      setCollapsed((c) => {
        const next = new Set(c);
        for (const id of hidden) next.delete(id);
        return next;
      });
  }, [selectedSpanId, index, collapsed]);
  const rows = useMemo(() => visibleTreeRows(index, collapsed), [index, collapsed]);
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => rowHeight, overscan: 12 });
  const selectedIndex = rows.findIndex((r) => r.span.spanId === selectedSpanId);
  useEffect(() => {
    if (selectedIndex >= 0) virtualizer.scrollToIndex(selectedIndex, { align: "auto" });
  }, [selectedIndex, virtualizer]);
  const toggle = (id: string, open?: boolean) =>
    setCollapsed((c) => {
      const next = new Set(c);
      if (open ?? next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const onKey = (e: KeyboardEvent) => {
    const current = selectedIndex >= 0 ? selectedIndex : 0;
    const row = rows[current];
    let target: number | null = null;
    if (e.key === "ArrowDown") target = current + 1;
    else if (e.key === "ArrowUp") target = current - 1;
    else if (e.key === "Home") target = 0;
    else if (e.key === "End") target = rows.length - 1;
    else if (e.key === "ArrowRight" && row?.hasChildren) {
      if (!row.expanded) toggle(row.span.spanId, true);
      else target = current + 1;
    } else if (e.key === "ArrowLeft" && row) {
      if (row.hasChildren && row.expanded) toggle(row.span.spanId, false);
      else if (row.span.parentSpanId !== null) {
        const p = rows.findIndex((r) => r.span.spanId === row.span.parentSpanId);
        if (p >= 0) target = p;
      }
    } else return;
    e.preventDefault();
    if (target !== null) {
      const t = rows[Math.max(0, Math.min(rows.length - 1, target))];
      if (t) onSelect(t.span.spanId);
    }
  };
  return (
    <div
      className="span-tree"
      ref={scroller}
      role="tree"
      aria-label="Span tree"
      tabIndex={0}
      onKeyDown={onKey}
      aria-activedescendant={selectedSpanId ? `tree-${selectedSpanId}` : undefined}
    >
      <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {virtualizer.getVirtualItems().map((item) => {
          const r = rows[item.index]!;
          const s = r.span;
          return (
            <div
              key={s.spanId}
              id={`tree-${s.spanId}`}
              role="treeitem"
              aria-level={r.depth + 1}
              aria-expanded={r.hasChildren ? r.expanded : undefined}
              aria-selected={s.spanId === selectedSpanId}
              data-span-id={s.spanId}
              className={`tree-row ${s.spanId === selectedSpanId ? "selected" : ""} ${s.isError ? "error" : ""}`}
              style={{ transform: `translateY(${item.start}px)`, height: rowHeight, paddingLeft: 6 + Math.min(r.depth, 40) * 14 }}
              onClick={() => onSelect(s.spanId)}
            >
              {r.hasChildren ? (
                <span
                  className="twisty"
                  aria-hidden="true"
                  onClick={(e) => {
                    e.stopPropagation();
                    toggle(s.spanId);
                  }}
                >
                  {r.expanded ? "▾" : "▸"}
                </span>
              ) : (
                <span className="twisty" aria-hidden="true" />
              )}
              <span className={`op op-${s.operation}`}>{s.operation}</span>
              <span className="tree-name">{s.name}</span>
              {s.agent && <span className="muted"> · {s.agent}</span>}
              {s.isError && <span className="badge outcome failed">error</span>}
              {findingSpanIds.has(s.spanId) && <span className="badge mode">finding</span>}
              <span className="muted tree-duration">{formatDuration(s.durationMs)}</span>
            </div>
          );
        })}
      </div>
    </div>
  );
});
