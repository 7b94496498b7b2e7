/** The time window of the metrics pages, kept in the URL (?window=24h). */
import { useLocation, useSearchUpdate } from "../router.tsx";

const windows: Record<string, number> = { "1h": 3_600_000, "24h": 86_400_000, "7d": 7 * 86_400_000, "30d": 30 * 86_400_000 };

export function windowFrom(search: URLSearchParams): string {
  const ms = windows[search.get("window") ?? "24h"] ?? windows["24h"]!;
  // Rounded to the minute so the query key (and cache) is stable across renders.
  return new Date(Math.floor((Date.now() - ms) / 60_000) * 60_000).toISOString();
}

export function WindowPicker() {
  const { search } = useLocation();
  const update = useSearchUpdate();
  return (
    <label>
      Window
      <select value={search.get("window") ?? "24h"} onChange={(e) => update({ window: e.target.value })}>
        <option value="1h">last hour</option>
        <option value="24h">last 24 hours</option>
        <option value="7d">last 7 days</option>
        <option value="30d">last 30 days</option>
      </select>
    </label>
  );
}
