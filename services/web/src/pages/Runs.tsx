/**
 * The runs list: newest first, keyset pages of 100 fetched as the table scrolls, rows virtualised
 * (only the rows in view are in the DOM), every filter server-side and kept in the URL.
 */
import { useInfiniteQuery } from "@tanstack/react-query";
import { useVirtualizer, type Range } from "@tanstack/react-virtual";
import { memo, useEffect, useMemo, useRef, useState, type CSSProperties, type FormEvent, type KeyboardEvent } from "react";
import { api, qs } from "../api.ts";
import type { UiConfig } from "../App.tsx";
import { formatCost, formatDuration, formatTime, formatTokens } from "../format.ts";
import { Link, navigate, useLocation, useSearchUpdate, useTitle } from "../router.tsx";
import type { TraceListFilters, TraceListPage } from "../types.ts";
import { Empty, ErrorState, Loading, ModeBadge, OutcomeBadge } from "../ui.tsx";
import { ScopeBanner, scopeQuery, useExperimentScope } from "../experiments/scope.tsx";
import { badgesFit, textFits } from "./cell-fit.ts";

const modes = ["FM-1.1", "FM-1.2", "FM-1.3", "FM-1.4", "FM-1.5", "FM-2.1", "FM-2.2", "FM-2.3", "FM-2.4", "FM-2.5", "FM-2.6", "FM-3.1", "FM-3.2", "FM-3.3"];
const filterKeys = ["window", "from", "to", "service", "agent", "outcome", "mode", "category", "source", "task", "baseline", "q"] as const;
const windows: Record<string, number> = { "1h": 3_600_000, "24h": 86_400_000, "7d": 7 * 86_400_000, "30d": 30 * 86_400_000 };
const pageSize = 100;
const rowHeight = 40;

function apiFilters(search: URLSearchParams): TraceListFilters {
  const f: TraceListFilters = {};
  for (const k of filterKeys) {
    const v = search.get(k);
    if (!v || k === "window") continue;
    f[k] = v;
  }
  const w = search.get("window");
  // An explicit from/to (a chart's bucket) wins over the window picker.
  if (w && windows[w] && !f.from && !f.to) f.from = new Date(Date.now() - windows[w]!).toISOString();
  return f;
}

export function RunsPage({ config }: { config: UiConfig }) {
  useTitle("Runs");
  const { search } = useLocation();
  const update = useSearchUpdate();
  const filters = useMemo(() => apiFilters(search), [search]);
  const scope = useExperimentScope(search);
  const anyFilter = scope !== null || filterKeys.some((k) => search.get(k));
  const scoped = scope ? scopeQuery(scope) : "";
  const runs = useInfiniteQuery({
    queryKey: ["runs", filters, scoped],
    queryFn: ({ pageParam, signal }) => api<TraceListPage>(`/traces${qs({ ...filters, limit: pageSize, cursor: pageParam })}${scoped}`, { signal }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    // Pages are appended, never changed: comparing every loaded row on each new page (structural
    // sharing) cost a long task per page once thousands of rows were loaded.
    structuralSharing: false,
  });
  const rows = useMemo(() => runs.data?.pages.flatMap((p) => p.items) ?? [], [runs.data]);

  return (
    <div className="page runs">
      <h1>Runs</h1>
      <Filters search={search} onApply={(values) => update(values)} />
      {(search.get("from") || search.get("to")) && (
        <p className="scope" role="note" data-testid="time-range">
          Runs started {search.get("from") ? `from ${formatTime(search.get("from")!)}` : ""} {search.get("to") ? `until ${formatTime(search.get("to")!)}` : ""}.{" "}
          <button type="button" onClick={() => update({ from: null, to: null })}>
            Any time
          </button>
        </p>
      )}
      {scope && <ScopeBanner scope={scope} shown={rows.length} complete={!runs.hasNextPage} />}
      {scope?.traceIds === null ? null : runs.isPending ? (
        <Loading what="runs" />
      ) : runs.isError ? (
        <ErrorState error={runs.error} what="the runs" retry={() => void runs.refetch()} />
      ) : rows.length === 0 ? (
        anyFilter ? (
          <Empty>
            No run matches these filters. <Link to="/runs">Clear the filters</Link>.
          </Empty>
        ) : (
          <FirstTrace config={config} />
        )
      ) : (
        <RunsTable rows={rows} hasMore={runs.hasNextPage} loadingMore={runs.isFetchingNextPage} loadMore={() => void runs.fetchNextPage()} />
      )}
    </div>
  );
}

function FirstTrace({ config }: { config: UiConfig }) {
  const endpoint = `${location.protocol}//${location.hostname}:${config.otlpHttpPort ?? 4318}/v1/traces`;
  return (
    <Empty>
      <h2>No runs yet</h2>
      <p>Send your first trace: point any OpenTelemetry exporter at the OTLP/HTTP endpoint</p>
      <pre className="snippet">{endpoint}</pre>
      <p>For example, with the OpenTelemetry SDK of your agents' language:</p>
      <pre className="snippet">{`export OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=${endpoint}\nexport OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf${config.authRequired ? '\nexport OTEL_EXPORTER_OTLP_TRACES_HEADERS="Authorization=Bearer <your API key>"' : ""}`}</pre>
      <p>A run appears here once its spans have been quiet for a moment; it is scored shortly after.</p>
    </Empty>
  );
}

function Filters({ search, onApply }: { search: URLSearchParams; onApply: (values: Record<string, string | null>) => void }) {
  const [values, setValues] = useState(() => Object.fromEntries(filterKeys.map((k) => [k, search.get(k) ?? ""])));
  useEffect(() => setValues(Object.fromEntries(filterKeys.map((k) => [k, search.get(k) ?? ""]))), [search]);
  const set = (k: string) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [k]: e.target.value }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onApply(Object.fromEntries(filterKeys.map((k) => [k, values[k] || null])));
  };
  const select = (k: string, label: string, options: [string, string][]) => (
    <label>
      {label}
      <select value={values[k]} onChange={(e) => onApply({ [k]: e.target.value || null })}>
        <option value="">any</option>
        {options.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </select>
    </label>
  );
  const text = (k: string, label: string, placeholder = "") => (
    <label>
      {label}
      <input type="search" value={values[k]} onChange={set(k)} placeholder={placeholder} />
    </label>
  );
  return (
    <form className="filters" onSubmit={submit} aria-label="Filters">
      {select("window", "Time", [
        ["1h", "last hour"],
        ["24h", "last 24 hours"],
        ["7d", "last 7 days"],
        ["30d", "last 30 days"],
      ])}
      {text("service", "Service")}
      {text("agent", "Agent")}
      {text("task", "Task")}
      {select("outcome", "Outcome", [
        ["success", "success"],
        ["failed", "failed"],
        ["unknown", "unknown"],
      ])}
      {select(
        "mode",
        "Finding mode",
        modes.map((m) => [m, m]),
      )}
      {select("category", "Category", [
        ["FC1", "FC1 specification"],
        ["FC2", "FC2 inter-agent"],
        ["FC3", "FC3 verification"],
      ])}
      {select("source", "Finding source", [
        ["code", "code"],
        ["judge", "judge"],
      ])}
      {select("baseline", "Baseline", [
        ["true", "baseline runs"],
        ["false", "not baseline"],
      ])}
      {text("q", "Text", "words in span names and content")}
      <button type="submit">Apply</button>
    </form>
  );
}

/** The columns, each with its narrowest width; Agents and Findings share the spare width 2:1. */
const columns = [
  { name: "Time", px: 212 },
  { name: "Service", px: 120 },
  { name: "Task", px: 120 },
  { name: "Outcome", px: 150 },
  { name: "Agents", px: 160, grow: 2 },
  { name: "Tokens", px: 90, numeric: true },
  { name: "Cost", px: 90, numeric: true },
  { name: "Duration", px: 90, numeric: true },
  { name: "Findings", px: 140, grow: 1 },
  { name: "Attributed", px: 120 },
] as const;
type ColumnName = (typeof columns)[number]["name"];
const gridColumns = columns.map((c) => ("grow" in c ? `minmax(${c.px}px, ${c.grow}fr)` : `${c.px}px`)).join(" ");
const tableMinWidth = columns.reduce((sum, c) => sum + c.px, 0);
/** Each column's narrowest room for content: its width less the cell's padding (8 px a side). */
const room = Object.fromEntries(columns.map((c) => [c.name, c.px - 16])) as Record<ColumnName, number>;

/** The class of a cell whose content might not fit its column: clipped, with an ellipsis. */
const clipUnless = (fits: boolean, className?: string) => (fits ? className : className ? `${className} clip` : "clip");

/**
 * One row, absolutely placed at its offset and laid out on its own (CSS containment): a row scrolling
 * into view costs its own layout and paint, never the whole table's. Rendered once when it comes
 * into view; scrolling re-renders only the list of rows in view.
 */
const RunRow = memo(function RunRow({ r, index, top, tabbable }: { r: TraceListPage["items"][number]; index: number; top: number; tabbable: boolean }) {
  const time = formatTime(r.startTime);
  const service = r.serviceName ?? "–";
  const task = r.taskId ?? "–";
  // The badges after the outcome's, drawn and measured from this one list.
  const marks: { text: string; className: string; title?: string }[] = [];
  if (r.isBaseline) marks.push({ text: "baseline", className: "badge baseline" });
  if (!r.settled) marks.push({ text: "open", className: "badge pending", title: "spans may still arrive" });
  const agentList = r.agents.join(", ");
  const agents = agentList || "–";
  const tokens = formatTokens(r.totalTokens);
  const cost = formatCost(r.costUsd);
  const duration = formatDuration(r.durationMs);
  const attributed = r.attributedAgent ?? "–";
  return (
    <div
      role="row"
      className="runs-row"
      data-index={index}
      data-trace-id={r.traceId}
      aria-rowindex={index + 2}
      style={{ top }}
      onClick={(e) => {
        if (!(e.target as HTMLElement).closest("a")) navigate(`/runs/${r.traceId}`);
      }}
    >
      <div role="cell" className={clipUnless(textFits(time, room.Time))}>
        <Link to={`/runs/${r.traceId}`} tabIndex={tabbable ? 0 : -1}>
          {time}
        </Link>
      </div>
      <div role="cell" className={clipUnless(textFits(service, room.Service))}>
        {service}
      </div>
      <div role="cell" className={clipUnless(textFits(task, room.Task))}>
        {task}
      </div>
      <div role="cell" className={clipUnless(badgesFit([r.outcome, ...marks.map((m) => m.text)], room.Outcome))}>
        <OutcomeBadge outcome={r.outcome} />
        {marks.map((m) => (
          <span key={m.text} className={m.className} title={m.title}>
            {m.text}
          </span>
        ))}
      </div>
      <div role="cell" title={agentList} className={clipUnless(textFits(agents, room.Agents))}>
        {agents}
      </div>
      <div role="cell" className={clipUnless(textFits(tokens, room.Tokens), "num")}>
        {tokens}
      </div>
      <div role="cell" className={clipUnless(textFits(cost, room.Cost), "num")}>
        {cost}
      </div>
      <div role="cell" className={clipUnless(textFits(duration, room.Duration), "num")}>
        {duration}
      </div>
      <div role="cell" className={clipUnless(badgesFit(r.findingModes, room.Findings, r.scored ? "" : "not scored yet"), "findings")}>
        {r.findingModes.map((m) => (
          <ModeBadge key={m} mode={m} />
        ))}
        {!r.scored && <span className="muted">not scored yet</span>}
      </div>
      <div role="cell" className={clipUnless(textFits(attributed, room.Attributed))}>
        {attributed}
      </div>
    </div>
  );
});

/** Where each navigation key moves the focus in the runs table, from the focused row's index. */
const rowKeys: Record<string, (index: number, last: number) => number> = {
  ArrowDown: (i) => i + 1,
  ArrowUp: (i) => i - 1,
  PageDown: (i) => i + 10,
  PageUp: (i) => i - 10,
  Home: () => 0,
  End: (_, last) => last,
};

/** Rows kept rendered above and below the ones in view. */
const overscan = 12;

/**
 * The window of rows rendered, always `length` long (fewer only when the list is shorter): the
 * rows in view with the overscan around them, shifted to stay inside the list at either end.
 */
function fixedWindow(range: Range, length: number): number[] {
  const end = Math.min(range.count, Math.max(0, range.startIndex - overscan) + length);
  const start = Math.max(0, end - length);
  return Array.from({ length: end - start }, (_, i) => start + i);
}

function RunsTable({ rows, hasMore, loadingMore, loadMore }: { rows: TraceListPage["items"]; hasMore: boolean; loadingMore: boolean; loadMore: () => void }) {
  const scroller = useRef<HTMLDivElement>(null);
  // Rows are keyed by their slot, not by run: the row leaving the window is reused for the one entering
  // it (its text and attributes rewritten), so scrolling builds no element. That holds only while the
  // window's length equals the slot count: a window a row shorter or longer leaves a key unused or
  // adds one, and a key that is not the leaving row's builds a new row (with more slots than rows in
  // the window, every scrolled frame built rows, thousands of DOM nodes a second). So the window is
  // always the longest the viewport needs (rows in view, one partly shown, the overscan on both
  // sides), and that length only grows, so keys change only when the viewport does.
  const slotCount = useRef(0);
  const viewportHeight = useRef(0);
  const slotsFor = (range: Range) => {
    const inView = Math.ceil(viewportHeight.current / rowHeight) + 1;
    slotCount.current = Math.max(slotCount.current, inView + 2 * overscan, range.endIndex - range.startIndex + 1 + 2 * overscan);
    return slotCount.current;
  };
  // Rows are rendered in a task of their own, not inside the scroll event (flushSync): the frame that
  // scrolls then lays out and paints without also rendering, so no single task does all three.
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => rowHeight,
    overscan,
    rangeExtractor: (range) => fixedWindow(range, slotsFor(range)),
    useFlushSync: false,
  });
  // The viewport's height as the virtualizer measured it (a ResizeObserver), never read from the DOM
  // here: a read during render would force a layout in the middle of every scrolled frame.
  viewportHeight.current = virtualizer.scrollRect?.height ?? 0;
  const items = virtualizer.getVirtualItems();
  const slots = Math.max(1, slotCount.current);
  // One tab stop for the whole table (the grid pattern): the row last focused while it is in view,
  // else the first row in view; the keys of rowKeys move between rows. The rows' DOM order is
  // their slots', not the list's, so tabbing from row to row would not follow the list.
  const [focused, setFocused] = useState(0);
  const visible = virtualizer.range;
  const tabStop = visible && (focused < visible.startIndex || focused > visible.endIndex) ? visible.startIndex : focused;
  // Rendered in slot order, not row order: the children's keys then keep one order as the window
  // moves, so React never moves a row element (a DOM move is a removal and an insertion to lay out).
  const bySlot = [...items].sort((a, b) => (a.index % slots) - (b.index % slots));
  const lastIndex = items[items.length - 1]?.index ?? 0;
  useEffect(() => {
    if (hasMore && !loadingMore && lastIndex >= rows.length - 20) loadMore();
  }, [hasMore, loadingMore, lastIndex, rows.length, loadMore]);
  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const row = (e.target as HTMLElement).closest<HTMLElement>("[role=row]");
    const index = row ? Number(row.dataset.index) : NaN;
    if (Number.isNaN(index)) return;
    const move = rowKeys[e.key];
    const next = move ? move(index, rows.length - 1) : null;
    if (next === null) return;
    e.preventDefault();
    const target = Math.max(0, Math.min(rows.length - 1, next));
    virtualizer.scrollToIndex(target);
    // A row in the window takes the focus at once (so a held key moves one row per press); one further
    // off is rendered in a later task than the scroll: look for it for a few frames.
    const focusRow = (framesLeft: number) => {
      const link = scroller.current?.querySelector<HTMLAnchorElement>(`[role=row][data-index="${target}"] a`);
      if (link) link.focus();
      else if (framesLeft > 0) requestAnimationFrame(() => focusRow(framesLeft - 1));
    };
    focusRow(10);
  };
  // A grid of divs, not a <table>: a table lays out every row again whenever one is added, which made
  // each scrolled frame cost tens of milliseconds; the roles keep it a table to assistive technology.
  return (
    <div className="table-scroll runs-scroll" ref={scroller} data-testid="runs-scroll">
      <div
        role="table"
        className="runs-table"
        aria-label="Runs"
        aria-rowcount={rows.length + 1}
        style={{ "--runs-columns": gridColumns, minWidth: tableMinWidth } as CSSProperties}
      >
        <div role="rowgroup" className="runs-head">
          <div role="row" className="runs-row" aria-rowindex={1}>
            {columns.map((c) => (
              <div role="columnheader" key={c.name} className={"numeric" in c ? "num" : undefined}>
                {c.name}
              </div>
            ))}
          </div>
        </div>
        <div
          role="rowgroup"
          className="runs-body"
          style={{ height: virtualizer.getTotalSize() }}
          onKeyDown={onKey}
          onFocus={(e) => {
            const row = (e.target as HTMLElement).closest<HTMLElement>("[role=row]");
            if (row) setFocused(Number(row.dataset.index));
          }}
        >
          {bySlot.map((item) => (
            <RunRow key={item.index % slots} r={rows[item.index]!} index={item.index} top={item.start} tabbable={item.index === tabStop} />
          ))}
        </div>
      </div>
      {loadingMore && <Loading what="more runs" />}
    </div>
  );
}
