import { describe, expect, it } from "vitest";
import { judgeBudgetDay, judgeSampled } from "../../src/index.ts";

const ids = Array.from({ length: 2_000 }, (_, i) => (i * 2_654_435_761).toString(16).padStart(32, "0").slice(-32));

describe("judge sampling", () => {
  it("picks about the share of trace ids, the same ones every time; 0 none, 1 all", () => {
    const picked = ids.filter((id) => judgeSampled(id, 0.1));
    expect(picked.length).toBeGreaterThan(140);
    expect(picked.length).toBeLessThan(260);
    expect(ids.filter((id) => judgeSampled(id, 0.1))).toEqual(picked);
    expect(ids.filter((id) => judgeSampled(id, 0))).toEqual([]);
    expect(ids.filter((id) => judgeSampled(id, 1))).toHaveLength(ids.length);
  });
  it("a larger share keeps every id a smaller one picked", () => {
    const small = ids.filter((id) => judgeSampled(id, 0.1));
    expect(small.every((id) => judgeSampled(id, 0.5))).toBe(true);
  });
});

describe("judge budget day", () => {
  it("is the UTC day of the clock", () => {
    expect(judgeBudgetDay(Date.UTC(2026, 0, 15, 23, 59, 59))).toEqual({ startMs: Date.UTC(2026, 0, 15), endMs: Date.UTC(2026, 0, 16) });
    expect(judgeBudgetDay(Date.UTC(2026, 0, 16))).toEqual({ startMs: Date.UTC(2026, 0, 16), endMs: Date.UTC(2026, 0, 17) });
  });
});
