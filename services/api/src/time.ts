/** ISO 8601 ↔ Unix nanoseconds at the API edge. */
import { z } from "zod";

export const IsoTime = z.iso.datetime({ offset: true, message: "must be an ISO 8601 date-time, e.g. 2026-11-30T12:00:00Z" });

export function isoToNs(iso: string): bigint {
  return BigInt(Date.parse(iso)) * 1_000_000n;
}

export function nsToIso(ns: bigint): string {
  return new Date(Number(ns / 1_000_000n)).toISOString();
}

export function nsToMs(ns: bigint): number {
  return Number(ns) / 1e6;
}
