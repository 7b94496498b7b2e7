import { describe, expect, it } from "vitest";
import { alertEventBody, deliveryBody, metricsQueryUrl, testEventBody, type AlertEventInput } from "../src/index.ts";

const event: AlertEventInput = {
  id: "evt-1",
  type: "alert.firing",
  sequence: 3,
  createdAt: new Date("2026-12-01T15:00:00Z"),
  rule: {
    id: "rule-1",
    name: "writer errors",
    scope: { service: "report crew", agent: "writer" },
    metric: { kind: "error_rate" },
    condition: { kind: "change", direction: "rise", by: 0.5 },
    windowMs: 3_600_000,
    minSamples: 10,
  },
  current: { value: 0.3, numerator: 3, denominator: 10, samples: 10 },
  previous: { value: 0.1, numerator: 1, denominator: 10, samples: 10 },
  change: 2,
  windowFromMs: Date.parse("2026-12-01T14:00:00Z"),
  windowToMs: Date.parse("2026-12-01T15:00:00Z"),
  exampleTraceIds: ["4bf92f3577b34da6a3ce929d0e0e4736"],
};

describe("alert event bodies", () => {
  it("carry the rule, the values with numerator and denominator, the window and links that reproduce them", () => {
    const body = alertEventBody(event, "https://crux.example.com/base/");
    expect(body).toMatchObject({
      id: "evt-1",
      type: "alert.firing",
      sequence: 3,
      values: { current: { numerator: 3, denominator: 10 }, previous: { numerator: 1 }, change: 2 },
      window: { from: "2026-12-01T14:00:00.000Z", to: "2026-12-01T15:00:00.000Z" },
    });
    expect(body.links.query).toBe(
      "https://crux.example.com/base/api/v1/metrics/agents?service=report+crew&agent=writer&from=2026-12-01T14%3A00%3A00.000Z&to=2026-12-01T15%3A00%3A00.000Z",
    );
    // The previous window is the one just before, of the same length.
    expect(body.links.previousQuery).toContain("from=2026-12-01T13%3A00%3A00.000Z&to=2026-12-01T14%3A00%3A00.000Z");
    expect(body.links.exampleTraces).toEqual(["https://crux.example.com/base/api/v1/traces/4bf92f3577b34da6a3ce929d0e0e4736"]);
    expect(body.links.rule).toBe("https://crux.example.com/base/api/v1/alert-rules/rule-1");
  });

  it("links each metric to the endpoint that serves it", () => {
    const w = { fromMs: 0, toMs: 1 };
    const path = (metric: AlertEventInput["rule"]["metric"]) => new URL(metricsQueryUrl("http://h", { ...event.rule, metric }, w)).pathname;
    expect(path({ kind: "failure_mode_rate", mode: "FM-1.3" })).toBe("/api/v1/metrics/failure-modes");
    expect(
      new URL(metricsQueryUrl("http://h", { ...event.rule, metric: { kind: "failure_category_rate", category: "FC2" } }, w)).searchParams.get("groupBy"),
    ).toBe("category");
    expect(path({ kind: "success_rate" })).toBe("/api/v1/metrics/success");
    expect(path({ kind: "cost_multiplier" })).toBe("/api/v1/metrics/cost-multiplier");
    expect(path({ kind: "tokens_per_trace" })).toBe("/api/v1/metrics/agents");
  });

  it("renders a Slack body only when asked", () => {
    const body = alertEventBody(event, "https://crux.example.com");
    expect(deliveryBody(body, false)).toBe(body);
    const slack = deliveryBody(body, true) as { text: string; blocks: { type: string }[] };
    expect(slack.text).toContain("alert.firing");
    expect(slack.text).toContain("0.3 (3 / 10)");
    expect(slack.blocks[0]).toMatchObject({ type: "header" });
    const test = deliveryBody(testEventBody("t-1", { id: "w", url: "https://r" }, new Date(0)), true) as { text: string };
    expect(test.text).toContain("webhook.test");
  });
});
