import { describe, expect, it } from "vitest";
import { alertWindows, evaluateAlertRule, relativeChange, type AlertRuleSpec, type MetricReading } from "../../src/index.ts";

const reading = (numerator: number, denominator: number, samples = denominator): MetricReading => ({
  value: denominator === 0 ? null : numerator / denominator,
  numerator,
  denominator,
  samples,
});
const above = (value: number, minSamples = 5): Pick<AlertRuleSpec, "condition" | "minSamples"> => ({
  condition: { kind: "threshold", op: "above", value },
  minSamples,
});

describe("evaluateAlertRule: threshold with hysteresis", () => {
  it("fires once when the condition starts to hold, then stays quiet while it holds", () => {
    const rule = above(0.2);
    expect(evaluateAlertRule(rule, reading(3, 10), null, "ok")).toMatchObject({ action: "fire", holds: true });
    // Same reading, state already firing: no second event.
    expect(evaluateAlertRule(rule, reading(3, 10), null, "firing")).toMatchObject({ action: "none", holds: true });
  });

  it("resolves once when the condition stops holding, then stays quiet", () => {
    const rule = above(0.2);
    expect(evaluateAlertRule(rule, reading(1, 10), null, "firing")).toMatchObject({ action: "resolve", holds: false });
    expect(evaluateAlertRule(rule, reading(1, 10), null, "ok")).toMatchObject({ action: "none", holds: false });
  });

  it("is strict at the threshold: equal to it does not hold", () => {
    expect(evaluateAlertRule(above(0.3), reading(3, 10), null, "ok").action).toBe("none");
    const below = { condition: { kind: "threshold", op: "below", value: 0.8 }, minSamples: 1 } as const;
    expect(evaluateAlertRule(below, reading(7, 10), null, "ok").action).toBe("fire");
    expect(evaluateAlertRule(below, reading(8, 10), null, "ok").action).toBe("none");
  });

  it("decides nothing below the minimum sample size, in either state", () => {
    const rule = above(0.2, 5);
    const tiny = reading(2, 2); // 100 %, but on two traces
    expect(evaluateAlertRule(rule, tiny, null, "ok")).toMatchObject({ action: "none", holds: null });
    expect(evaluateAlertRule(rule, reading(0, 2), null, "firing")).toMatchObject({ action: "none", holds: null });
    expect(evaluateAlertRule(rule, reading(5, 5), null, "ok").action).toBe("fire");
  });

  it("decides nothing when the window has no value (not measured)", () => {
    const unmeasured: MetricReading = { value: null, numerator: 0, denominator: 10, samples: 10 };
    expect(evaluateAlertRule(above(0.2, 1), unmeasured, null, "firing").action).toBe("none");
  });
});

describe("evaluateAlertRule: change against the previous window", () => {
  const rise = { condition: { kind: "change", direction: "rise", by: 0.5 }, minSamples: 5 } as const;
  const drop = { condition: { kind: "change", direction: "drop", by: 0.25 }, minSamples: 5 } as const;

  it("fires on a relative rise of at least `by` and reports the change", () => {
    const e = evaluateAlertRule(rise, reading(3, 10), reading(2, 10), "ok");
    expect(e.action).toBe("fire");
    expect(e.change).toBeCloseTo(0.5);
    expect(evaluateAlertRule(rise, reading(29, 100), reading(2, 10), "ok").action).toBe("none"); // +45 %
  });

  it("fires on a relative drop, and resolves when the drop is gone", () => {
    expect(evaluateAlertRule(drop, reading(6, 10), reading(8, 10), "ok").action).toBe("fire"); // −25 %
    expect(evaluateAlertRule(drop, reading(7, 10), reading(8, 10), "ok").action).toBe("none"); // −12.5 %
    expect(evaluateAlertRule(drop, reading(8, 10), reading(8, 10), "firing").action).toBe("resolve");
  });

  it("needs the minimum sample size in the previous window too", () => {
    expect(evaluateAlertRule(rise, reading(9, 10), reading(0, 3), "ok")).toMatchObject({ action: "none", holds: null });
    expect(evaluateAlertRule(rise, reading(9, 10), null, "ok").action).toBe("none");
  });

  it("a rise from zero is unbounded: it holds, and the change is reported as null", () => {
    const e = evaluateAlertRule(rise, reading(4, 10), reading(0, 10), "ok");
    expect(e).toMatchObject({ action: "fire", change: null });
    expect(evaluateAlertRule(rise, reading(0, 10), reading(0, 10), "ok").action).toBe("none");
  });
});

describe("relativeChange and alertWindows", () => {
  it("computes the change against the magnitude of the previous value", () => {
    expect(relativeChange(15, 10)).toBeCloseTo(0.5);
    expect(relativeChange(5, 10)).toBeCloseTo(-0.5);
    expect(relativeChange(0, 0)).toBe(0);
    expect(relativeChange(-1, 0)).toBe(-Infinity);
  });

  it("puts the previous window right before the current one", () => {
    expect(alertWindows(60_000, 1_000_000)).toEqual({
      current: { fromMs: 940_000, toMs: 1_000_000 },
      previous: { fromMs: 880_000, toMs: 940_000 },
    });
  });
});
