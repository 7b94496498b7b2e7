/**
 * The timeline's waterfall: one swimlane per agent (in order of first start), and inside a lane
 * as many rows as its spans overlap (each span on the first row free at its start), so nested
 * and parallel spans never hide each other. Pure.
 */
import type { FlatSpan } from "./spans.ts";

export interface TimelineBar {
  spanId: string;
  name: string;
  lane: number;
  /** Row inside the lane. */
  row: number;
  /** Row over the whole timeline (lanes stacked). */
  globalRow: number;
  startMs: number;
  durationMs: number;
  isError: boolean;
  hasFinding: boolean;
  operation: FlatSpan["operation"];
}

interface TimelineLane {
  agent: string | null;
  label: string;
  firstRow: number;
  rows: number;
}

export interface TimelineLayout {
  lanes: TimelineLane[];
  bars: TimelineBar[];
  /** Bars per global row, for drawing only the rows in view. */
  rows: TimelineBar[][];
  totalMs: number;
}

export function layoutTimeline(spans: FlatSpan[], traceStartNs: bigint, findingSpanIds: ReadonlySet<string>): TimelineLayout {
  const timed = spans
    .map((s) => ({ s, start: Number(BigInt(s.startTimeUnixNano) - traceStartNs) / 1e6, end: Number(BigInt(s.endTimeUnixNano) - traceStartNs) / 1e6 }))
    .sort((a, b) => a.start - b.start || (a.s.spanId < b.s.spanId ? -1 : 1));
  const laneIndex = new Map<string | null, number>();
  const laneEnds: number[][] = [];
  const lanesAgent: (string | null)[] = [];
  const placed: { t: (typeof timed)[number]; lane: number; row: number }[] = [];
  let totalMs = 0;
  for (const t of timed) {
    let lane = laneIndex.get(t.s.agent);
    if (lane === undefined) {
      lane = lanesAgent.length;
      laneIndex.set(t.s.agent, lane);
      lanesAgent.push(t.s.agent);
      laneEnds.push([]);
    }
    const ends = laneEnds[lane]!;
    let row = ends.findIndex((end) => end <= t.start);
    if (row === -1) {
      row = ends.length;
      ends.push(t.end);
    } else ends[row] = t.end;
    placed.push({ t, lane, row });
    totalMs = Math.max(totalMs, t.end);
  }
  const lanes: TimelineLane[] = [];
  let next = 0;
  for (let i = 0; i < lanesAgent.length; i++) {
    const rows = laneEnds[i]!.length;
    lanes.push({ agent: lanesAgent[i]!, label: lanesAgent[i] ?? "(no agent)", firstRow: next, rows });
    next += rows;
  }
  const rows: TimelineBar[][] = Array.from({ length: next }, () => []);
  const bars = placed.map(({ t, lane, row }) => {
    const bar: TimelineBar = {
      spanId: t.s.spanId,
      name: t.s.name,
      lane,
      row,
      globalRow: lanes[lane]!.firstRow + row,
      startMs: t.start,
      durationMs: Math.max(0, t.end - t.start),
      isError: t.s.isError,
      hasFinding: findingSpanIds.has(t.s.spanId),
      operation: t.s.operation,
    };
    rows[bar.globalRow]!.push(bar);
    return bar;
  });
  return { lanes, bars, rows, totalMs };
}
