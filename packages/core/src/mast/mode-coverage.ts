/**
 * Which modes of the taxonomy something measures under a configuration: a
 * mode is measured when a detector of the list covers it and the configuration
 * it needs is set (a detector that cannot fire measures nothing); a config-free
 * heuristic that stands down for the configuration does not count. The rates of
 * unmeasured modes are unknown, never 0 (docs/metrics.md §11).
 */
import { configNeeds, type ConfigNeed } from "./config-needs.ts";
import { mastDetectors, standsDown } from "./registry.ts";
import { mastModeIds, type MastModeId } from "./finding.ts";

export interface ModeCoverage {
  mode: MastModeId;
  measured: boolean;
  /** Ids of the detectors that measure it (mastDetectors). */
  detectors: string[];
  /** Why it is not measured; null when it is. */
  reason: string | null;
}

/** One entry per mode of the taxonomy, in order. `scope` completes "none configured for …". */
export function modeCoverage(configured: ReadonlySet<ConfigNeed>, scope = "this project"): ModeCoverage[] {
  return mastModeIds.map((mode) => {
    const covering = mastDetectors.flatMap((d) => d.modes.filter((m) => m.mode === mode).map((m) => ({ id: d.id, needs: m.needsConfig, entry: m })));
    const measuring = covering.filter((c) => (c.needs.length === 0 || c.needs.some((n) => configured.has(n))) && !standsDown(c.entry, configured));
    if (measuring.length > 0) return { mode, measured: true, detectors: measuring.map((c) => c.id), reason: null };
    if (covering.length === 0) return { mode, measured: false, detectors: [], reason: "no detector" };
    const labels = [...new Set(covering.flatMap((c) => c.needs.map((n) => configNeeds[n].label)))];
    return { mode, measured: false, detectors: [], reason: `needs ${labels.join(" or ")}; none configured for ${scope}` };
  });
}
