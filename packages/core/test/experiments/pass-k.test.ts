import { describe, expect, it } from "vitest";
import { passAtKOfTask, passHatKOfTask, passKCurve } from "../../src/experiments/index.ts";

/** Every k-subset of trial indices 0..n-1. */
function subsets(n: number, k: number): number[][] {
  if (k === 0) return [[]];
  const out: number[][] = [];
  for (let first = 0; first <= n - k; first++) for (const rest of subsets(n - first - 1, k - 1)) out.push([first, ...rest.map((r) => r + first + 1)]);
  return out;
}

/** pass@k and pass^k by listing every k-subset of trials: the first c trials succeed. */
function enumerate(n: number, c: number, k: number): { at: number; hat: number } {
  const all = subsets(n, k);
  const any = all.filter((s) => s.some((i) => i < c)).length;
  const every = all.filter((s) => s.every((i) => i < c)).length;
  return { at: any / all.length, hat: every / all.length };
}

describe("pass@k and pass^k", () => {
  it("match direct enumeration of every k-subset for n up to 8", () => {
    for (let n = 1; n <= 8; n++) {
      for (let c = 0; c <= n; c++) {
        for (let k = 1; k <= n; k++) {
          const e = enumerate(n, c, k);
          expect(passAtKOfTask(n, c, k)).toBeCloseTo(e.at, 12);
          expect(passHatKOfTask(n, c, k)).toBeCloseTo(e.hat, 12);
        }
      }
    }
  });

  it("a task right 2 times in 3: pass^3 = 0, pass^2 = 1/3, pass@2 = 1", () => {
    expect(passHatKOfTask(3, 2, 1)).toBeCloseTo(2 / 3, 12);
    expect(passHatKOfTask(3, 2, 2)).toBeCloseTo(1 / 3, 12);
    expect(passHatKOfTask(3, 2, 3)).toBe(0);
    expect(passAtKOfTask(3, 2, 2)).toBe(1);
  });

  it("stays finite and exact where binomial coefficients would overflow", () => {
    // C(2000, 500) overflows a double; the product form does not.
    const hat = passHatKOfTask(2000, 1999, 500);
    expect(hat).toBeCloseTo(1 - 500 / 2000, 12); // C(1999,500)/C(2000,500) = (2000-500)/2000
    expect(passAtKOfTask(2000, 1, 500)).toBeCloseTo(500 / 2000, 12);
  });

  it("averages over tasks for every k up to the smallest trial count", () => {
    const curve = passKCurve([
      { taskId: "a", trials: 3, successes: 3 },
      { taskId: "b", trials: 2, successes: 1 },
    ]);
    expect(curve.map((p) => p.k)).toEqual([1, 2]);
    expect(curve[0]).toEqual({ k: 1, passAtK: (1 + 0.5) / 2, passHatK: (1 + 0.5) / 2 });
    expect(curve[1]).toEqual({ k: 2, passAtK: (1 + 1) / 2, passHatK: (1 + 0) / 2 });
    expect(passKCurve([])).toEqual([]);
  });

  it("rejects impossible counts", () => {
    expect(() => passHatKOfTask(3, 4, 1)).toThrow(RangeError);
    expect(() => passAtKOfTask(3, 1, 4)).toThrow(RangeError);
    expect(() => passAtKOfTask(3, 1, 0)).toThrow(RangeError);
  });
});
