/** Unix nanoseconds ↔ ISO 8601 at the API edge (request times are validated by IsoTime in @crux/contracts). */

export function isoToNs(iso: string): bigint {
  return BigInt(Date.parse(iso)) * 1_000_000n;
}

export function nsToIso(ns: bigint): string {
  return new Date(Number(ns / 1_000_000n)).toISOString();
}

export function nsToMs(ns: bigint): number {
  return Number(ns) / 1e6;
}
