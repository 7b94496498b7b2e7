/**
 * A line chart over time buckets in plain SVG (a few series, a dozen points: no chart library
 * needed). A missing value (an unmeasured rate) is a gap in the line, never a zero; a missing value
 * with a note (tokens not reported) is a hollow marker on the axis named by its note. Each point is
 * a link (focusable, named by its series, bucket and value) to the runs behind it.
 */
import { navigate } from "../router.tsx";
import type { TimeBucket } from "./buckets.ts";

export interface ChartSeries {
  name: string;
  values: (number | null)[];
  /** Per bucket: why a value is missing (drawn as a hollow marker), or what qualifies a value. */
  notes?: (string | null)[];
}

const width = 760;
const height = 220;
const pad = { left: 56, right: 16, top: 12, bottom: 28 };
const palette = ["#3b6fd8", "#d8553b", "#2a8a58", "#8a3ab9", "#c07a12", "#1f9aa8", "#b8407a", "#6b7384"];

export function LineChart({
  label,
  buckets,
  series,
  format,
  max,
  href,
  footnote,
}: {
  label: string;
  buckets: TimeBucket[];
  series: ChartSeries[];
  format: (v: number) => string;
  /** The top of the y axis (1 for rates); the largest value when left out. */
  max?: number;
  href: (series: ChartSeries, bucket: number) => string;
  footnote?: string | undefined;
}) {
  const top = max ?? Math.max(0, ...series.flatMap((s) => s.values.filter((v): v is number => v !== null)));
  const yMax = top > 0 ? top : 1;
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const x = (i: number) => pad.left + (buckets.length <= 1 ? plotW / 2 : (i * plotW) / (buckets.length - 1));
  const y = (v: number) => pad.top + plotH - (v / yMax) * plotH;
  const labelEvery = Math.max(1, Math.ceil(buckets.length / 6));
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="group" aria-label={label}>
        {[0, 0.5, 1].map((f) => (
          <g key={f} className="grid">
            <line x1={pad.left} x2={width - pad.right} y1={y(f * yMax)} y2={y(f * yMax)} />
            <text x={pad.left - 6} y={y(f * yMax) + 4} textAnchor="end">
              {format(f * yMax)}
            </text>
          </g>
        ))}
        {buckets.map((b, i) =>
          i % labelEvery === 0 ? (
            <text key={b.from} className="tick" x={x(i)} y={height - 8} textAnchor="middle">
              {b.label}
            </text>
          ) : null,
        )}
        {series.map((s, si) => {
          const color = palette[si % palette.length]!;
          // Consecutive measured values form one segment; a null ends it.
          const segments: string[] = [];
          let current: string[] = [];
          s.values.forEach((v, i) => {
            if (v === null) {
              if (current.length > 1) segments.push(current.join(" "));
              current = [];
            } else current.push(`${x(i)},${y(v)}`);
          });
          if (current.length > 1) segments.push(current.join(" "));
          return (
            <g key={s.name} data-series={s.name}>
              {segments.map((pts, k) => (
                <polyline key={k} points={pts} fill="none" stroke={color} strokeWidth={2} />
              ))}
              {s.values.map((v, i) => {
                const note = s.notes?.[i] ?? null;
                if (v === null && note === null) return null;
                const to = href(s, i);
                const name = `${s.name}, ${buckets[i]!.label}: ${v === null ? note : format(v)}${v !== null && note ? ` (${note})` : ""}`;
                return (
                  <a
                    key={i}
                    href={to}
                    aria-label={name}
                    data-bucket={i}
                    data-missing={v === null ? "true" : undefined}
                    onClick={(e) => {
                      if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
                      e.preventDefault();
                      navigate(to);
                    }}
                  >
                    <title>{name}</title>
                    {v === null ? (
                      <circle className="missing" cx={x(i)} cy={y(0)} r={4.5} stroke={color} strokeDasharray="2 2" />
                    ) : (
                      <circle cx={x(i)} cy={y(v)} r={4.5} fill={color} />
                    )}
                  </a>
                );
              })}
            </g>
          );
        })}
      </svg>
      <figcaption>
        <ul className="legend">
          {series.map((s, si) => (
            <li key={s.name}>
              <span className="swatch" style={{ background: palette[si % palette.length] }} aria-hidden="true" />
              {s.name}
            </li>
          ))}
        </ul>
        {footnote && <p className="muted small">{footnote}</p>}
      </figcaption>
    </figure>
  );
}
