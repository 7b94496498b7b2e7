/** Number, money, duration and time formats shared by the pages. */
const int = new Intl.NumberFormat("en-US");

export function formatTokens(n: number | null | undefined): string {
  return n === null || n === undefined ? "–" : int.format(n);
}

export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return "–";
  if (usd === 0) return "$0";
  if (usd < 0.01) return `$${usd.toPrecision(2)}`;
  return `$${usd.toFixed(usd < 10 ? 4 : 2)}`;
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "–";
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

// One formatter: toLocaleString with options builds a new one per call, which costs more than the row it formats.
const dateTime = new Intl.DateTimeFormat(undefined, { year: "numeric", month: "short", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" });

export function formatTime(iso: string): string {
  return dateTime.format(new Date(iso));
}

export function formatPercent(x: number | null | undefined, digits = 1): string {
  return x === null || x === undefined ? "–" : `${(x * 100).toFixed(digits)}%`;
}

export function formatNumber(x: number | null | undefined, digits = 2): string {
  return x === null || x === undefined ? "–" : x.toFixed(digits);
}

/** An estimate with its interval, "66.7% [50.0%, 83.3%]", each bound in the estimate's format. */
export function formatInterval(iv: { estimate: number; lower: number; upper: number } | null | undefined, format: (x: number) => string): string {
  return iv === null || iv === undefined ? "–" : `${format(iv.estimate)} [${format(iv.lower)}, ${format(iv.upper)}]`;
}

export function formatMultiplier(x: number | null | undefined): string {
  return x === null || x === undefined ? "–" : `×${x.toFixed(2)}`;
}
