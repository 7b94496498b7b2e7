/**
 * Pure parts of the judge policy: which share of the traces a judge reads
 * (deterministic by trace id, so a retry or a second worker decides the same),
 * and the UTC day a judge budget counts spend for.
 */

/** FNV-1a over the trace id, as a fraction in [0, 1). */
function unitHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h / 0x1_0000_0000;
}

/** Whether a trace that did not fail falls in the sampled share (0: none, 1: all). */
export function judgeSampled(traceId: string, share: number): boolean {
  if (share <= 0) return false;
  if (share >= 1) return true;
  return unitHash(traceId) < share;
}

const dayMs = 86_400_000;

/** The UTC day a judge spend counts for: its start and the next day's start (ms). */
export function judgeBudgetDay(nowMs: number): { startMs: number; endMs: number } {
  const startMs = Math.floor(nowMs / dayMs) * dayMs;
  return { startMs, endMs: startMs + dayMs };
}
