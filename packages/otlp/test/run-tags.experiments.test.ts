import { describe, expect, it } from "vitest";
import { readRunTags } from "../src/normalize/run-tags.ts";
import type { Attributes, DecodedSpan } from "@crux/core";
import { decodedSpan } from "@crux/core/testing";
import { normalizeSpan } from "../src/normalize/index.ts";

const span = (name: string, attributes: Attributes = {}, over: Partial<DecodedSpan> = {}): DecodedSpan => decodedSpan({ name, attributes, ...over });

describe("experiment run tags", () => {
  it("reads the trial, the replay id and an agent set given as a string array", () => {
    const s = normalizeSpan(
      span("root", { "crux.experiment.id": "exp-1", "crux.trial": 2, "crux.agents.active": ["reviewer", " planner", "reviewer"], "crux.replay.id": "r-9" }),
    );
    expect(s.tags["crux.agents.active"]).toEqual(["reviewer", " planner", "reviewer"]);
    expect(readRunTags(s.tags)).toMatchObject({ experimentId: "exp-1", trial: 2, activeAgents: ["planner", "reviewer"], replayId: "r-9" });
  });

  it("reads an agent set given as one comma-separated string, from the resource too", () => {
    const s = normalizeSpan(span("root", { "crux.trial": "3" }, { resource: { "crux.agents.active": "writer, planner,,writer" } }));
    expect(readRunTags(s.tags)).toMatchObject({ trial: 3, activeAgents: ["planner", "writer"] });
  });

  it("an empty array is the empty coalition; an empty string, a mixed array or a bad trial is no tag", () => {
    expect(readRunTags({ "crux.agents.active": [] }).activeAgents).toEqual([]);
    expect(readRunTags({ "crux.agents.active": " " }).activeAgents).toBeNull();
    expect(readRunTags({ "crux.trial": -1 }).trial).toBeNull();
    expect(readRunTags({ "crux.trial": 1.5 }).trial).toBeNull();
    const mixed = normalizeSpan(span("root", { "crux.agents.active": ["a", 1] }));
    expect(mixed.tags["crux.agents.active"]).toBeUndefined();
  });
});
