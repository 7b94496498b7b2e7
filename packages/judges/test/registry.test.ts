/**
 * Every judge the suite can run declares the MAST modes it asks about: validation and the
 * judge-only rates read that list from the verdict, so a judge registered without it would be
 * counted for no mode (or, on older verdicts, for every mode).
 */
import { JudgeKind } from "@crux/contracts";
import { mastModeIds } from "@crux/core";
import { describe, expect, it } from "vitest";
import { judgeDefinitions } from "../src/suite.ts";

describe("judge registry", () => {
  it("registers exactly the judge kinds of the API", () => {
    expect(Object.keys(judgeDefinitions).sort()).toEqual([...JudgeKind.options].sort());
  });

  it.each(Object.entries(judgeDefinitions))("%s declares the modes it asks about", (kind, def) => {
    expect(def.kind).toBe(kind);
    expect(Array.isArray(def.asksAbout), `${kind} has no asksAbout list`).toBe(true);
    for (const mode of def.asksAbout) expect(mastModeIds).toContain(mode);
    expect(new Set(def.asksAbout).size).toBe(def.asksAbout.length);
  });

  it("asks the checklist about every mode and handoff preservation about dropped constraints only", () => {
    expect(judgeDefinitions["mast-checklist"].asksAbout).toEqual(mastModeIds);
    expect(judgeDefinitions["handoff-preservation"].asksAbout).toEqual(["FM-2.4"]);
  });
});
