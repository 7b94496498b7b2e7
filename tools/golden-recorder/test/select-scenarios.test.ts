import { describe, expect, it } from "vitest";
import { selectScenarios } from "../src/select-scenarios.ts";

const all = [{ framework: "vercel-ai" }, { framework: "openai-agents" }, { framework: "langgraph" }, { framework: "mastra" }];

describe("selectScenarios", () => {
  it("keeps every scenario when no list is given", () => {
    expect(selectScenarios(all, undefined).map((s) => s.framework)).toEqual(["vercel-ai", "openai-agents", "langgraph", "mastra"]);
    expect(selectScenarios(all, " , ").map((s) => s.framework)).toHaveLength(4);
  });

  it("keeps only the listed frameworks, in scenario order", () => {
    expect(selectScenarios(all, "mastra, openai-agents").map((s) => s.framework)).toEqual(["openai-agents", "mastra"]);
  });

  it("rejects a name that is not a scenario instead of silently recording nothing", () => {
    expect(() => selectScenarios(all, "openai-agent")).toThrow(/unknown framework\(s\) openai-agent/);
  });
});
