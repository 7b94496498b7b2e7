import { describe, expect, it } from "vitest";
import { defaultPriceTable, matchPrice, priceTokens, scoreCost, scoreUsage, normalizeModelId } from "../../src/index.ts";
import { clean, cleanSpecs, traj, withSpecs } from "../trajectory/fixtures.ts";

describe("scoreUsage", () => {
  it("gives per-agent tokens and shares of the trace's tokens", () => {
    const u = scoreUsage(clean());
    // lead: 400+100 + 500+100 = 1100; researcher 1000; writer 1600; reviewer 750 → total 4450
    expect(u.totals.totalTokens).toBe(4450);
    const share = Object.fromEntries(u.agents.map((a) => [a.agent, a.tokenShare]));
    expect(share["lead"]).toBeCloseTo(1100 / 4450, 10);
    expect(share["writer"]).toBeCloseTo(1600 / 4450, 10);
    expect(u.agents.reduce((s, a) => s + (a.tokenShare ?? 0), 0)).toBeCloseTo(1, 10);
    expect(u.agents.find((a) => a.agent === "researcher")).toMatchObject({ cachedTokens: 300, toolCalls: 1, llmCalls: 1, steps: 2 });
    expect(u.errorPaths).toEqual([]);
  });

  it("reports an error with the chain of agents above it", () => {
    const t = traj(withSpecs(cleanSpecs, [{ id: "res.q", parent: "res", op: "tool", tool: "web_search", start: 30, end: 60, error: "HTTPError" }]));
    const u = scoreUsage(t);
    expect(u.errorPaths).toHaveLength(1);
    expect(u.errorPaths[0]).toMatchObject({ spanId: "res.q", path: "lead > researcher", agent: "researcher", depth: 2, errorType: "HTTPError", stepIndex: 1 });
  });
});

describe("price matching", () => {
  it("matches exact ids, then the longest prefix at a separator", () => {
    expect(matchPrice("gpt-4o", defaultPriceTable)).toMatchObject({ match: "exact", price: { model: "gpt-4o" } });
    expect(matchPrice("gpt-4o-2024-08-06", defaultPriceTable)).toMatchObject({ match: "prefix", price: { model: "gpt-4o" } });
    expect(matchPrice("gpt-4o-mini-2024-07-18", defaultPriceTable)?.price.model).toBe("gpt-4o-mini");
    expect(matchPrice("claude-3-5-sonnet-20241022", defaultPriceTable)?.price.model).toBe("claude-3-5-sonnet");
    expect(matchPrice("models/gemini-2.5-flash-lite", defaultPriceTable)?.price.model).toBe("gemini-2.5-flash-lite");
    expect(matchPrice("openai/GPT-4.1-mini", defaultPriceTable)?.price.model).toBe("gpt-4.1-mini");
    // "gpt-4o" must not price "gpt-4oz", nor "o3" price "o3x"
    expect(matchPrice("gpt-4oz", defaultPriceTable)).toBeNull();
    expect(matchPrice("o3x", defaultPriceTable)).toBeNull();
    expect(normalizeModelId("anthropic.claude-3-haiku-20240307-v1:0")).toBe("claude-3-haiku-20240307-v1:0");
  });

  it("falls back only to the same model's row: a snapshot suffix, never another version, size or tier", () => {
    // claude-opus-4-5 is its own model at $5/$25, not claude-opus-4 at $15/$75: 1M in + 1M out = $30
    const opus45 = matchPrice("claude-opus-4-5", defaultPriceTable);
    expect(opus45).toMatchObject({ match: "exact", price: { model: "claude-opus-4-5" } });
    expect(priceTokens(opus45!.price, { inputTokens: 1_000_000, outputTokens: 1_000_000, cachedTokens: 0 })).toBeCloseTo(30, 9);
    expect(matchPrice("claude-opus-4-5-20251101", defaultPriceTable)?.price.model).toBe("claude-opus-4-5");
    expect(matchPrice("claude-opus-4-20250514", defaultPriceTable)?.price.model).toBe("claude-opus-4");
    expect(matchPrice("claude-sonnet-4@20250514", defaultPriceTable)?.price.model).toBe("claude-sonnet-4");
    expect(matchPrice("anthropic.claude-3-haiku-20240307-v1:0", defaultPriceTable)?.price.model).toBe("claude-3-haiku");
    expect(matchPrice("claude-3-5-sonnet-latest", defaultPriceTable)?.price.model).toBe("claude-3-5-sonnet");
    expect(matchPrice("gemini-1.5-pro-002", defaultPriceTable)?.price.model).toBe("gemini-1.5-pro");
    // another version, size or tier of a priced model is unpriced, not billed at its neighbour's row
    const table = [
      { model: "claude-opus-4", inputPerMTok: 15, outputPerMTok: 75 },
      { model: "gpt-4o", inputPerMTok: 2.5, outputPerMTok: 10 },
    ];
    expect(matchPrice("claude-opus-4-5", table)).toBeNull();
    expect(matchPrice("claude-opus-4-1-20250805", table)).toBeNull();
    expect(matchPrice("gpt-4o-mini", table)).toBeNull();
    expect(matchPrice("gpt-4o-mini-2024-07-18", table)).toBeNull();
    expect(matchPrice("gemini-2.5-flash-preview-05-20", defaultPriceTable)).toBeNull();
  });

  it("prices the newest models, the judges' models among them", () => {
    expect(matchPrice("claude-haiku-4-5", defaultPriceTable)?.price).toMatchObject({ inputPerMTok: 1, outputPerMTok: 5, cachedInputPerMTok: 0.1 });
    expect(matchPrice("claude-haiku-4-5-20251001", defaultPriceTable)?.price.model).toBe("claude-haiku-4-5");
    expect(matchPrice("gpt-5.6-luna", defaultPriceTable)?.price).toMatchObject({ inputPerMTok: 0.2, outputPerMTok: 1.2 });
    expect(matchPrice("gpt-5.6-terra-2026-10-01", defaultPriceTable)?.price.model).toBe("gpt-5.6-terra");
    expect(matchPrice("gpt-6-luna-2026-09-22", defaultPriceTable)?.price.model).toBe("gpt-6-luna");
    // one row per model id
    const ids = defaultPriceTable.map((row) => row.model);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("bills cached tokens at the cached price as part of input", () => {
    const price = { model: "m", inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 };
    // (1000-400)*2 + 400*0.5 + 100*8 = 1200 + 200 + 800 = 2200 per 1M
    expect(priceTokens(price, { inputTokens: 1000, outputTokens: 100, cachedTokens: 400 })).toBeCloseTo(0.0022, 12);
    expect(priceTokens({ model: "m", inputPerMTok: 2, outputPerMTok: 8 }, { inputTokens: 1000, outputTokens: 0, cachedTokens: 400 })).toBeCloseTo(0.002, 12);
  });
});

describe("scoreCost", () => {
  it("prices every counted span of the clean trace", () => {
    const c = scoreCost(clean());
    // gpt-4o: (400*2.5+100*10) + (1000*2.5+600*10) + (500*2.5+100*10) = 2000 + 8500 + 2250 = 12750
    // gpt-4o-mini: 500*0.15 + 300*0.075 + 200*0.6 = 75 + 22.5 + 120 = 217.5 ; haiku 3.5: 700*0.8 + 50*4 = 760
    expect(c.total.totalUsd).toBeCloseTo((12750 + 217.5 + 760) / 1e6, 12);
    expect(c.total.complete).toBe(true);
    expect(c.agents.find((a) => a.agent === "researcher")?.totalUsd).toBeCloseTo(217.5 / 1e6, 12);
  });

  it("lets tracer-reported cost win over the price table", () => {
    const t = traj(
      withSpecs(cleanSpecs, [{ id: "plan", parent: "lead", op: "llm", model: "gpt-4o", start: 1, end: 10, tokens: { input: 400, output: 100 }, cost: 0.5 }]),
    );
    const c = scoreCost(t);
    expect(c.spans.find((s) => s.spanId === "plan")).toMatchObject({ source: "reported", usd: 0.5 });
    expect(c.total.reportedUsd).toBe(0.5);
  });

  it("reports an unknown model as unpriced, never as zero", () => {
    const t = traj(
      withSpecs(cleanSpecs, [{ id: "plan", parent: "lead", op: "llm", model: "my-local-llama", start: 1, end: 10, tokens: { input: 400, output: 100 } }]),
    );
    const c = scoreCost(t);
    expect(c.total.complete).toBe(false);
    expect(c.total.totalUsd).toBeNull();
    expect(c.total.unpricedTokens).toBe(500);
    expect(c.unpriced).toEqual([{ model: "my-local-llama", spans: 1, inputTokens: 400, outputTokens: 100, cachedTokens: 0 }]);
    expect(c.agents.find((a) => a.agent === "lead")?.totalUsd).toBeNull();
    expect(c.agents.find((a) => a.agent === "writer")?.totalUsd).not.toBeNull();
  });
});
