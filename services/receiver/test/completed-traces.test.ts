import { describe, expect, it } from "vitest";
import { completedTraces } from "../src/ingest.ts";

const s = (traceId: string, spanId: string, parentSpanId: string | null) => ({ traceId, spanId, parentSpanId });

describe("completedTraces (settle sooner when the root and its children are in)", () => {
  it("a trace whose root and every parent are in the batch is complete", () => {
    expect(completedTraces([s("t1", "a", null), s("t1", "b", "a"), s("t1", "c", "b")])).toEqual(new Set(["t1"]));
  });
  it("a trace without its root is not", () => {
    expect(completedTraces([s("t1", "b", "a"), s("t1", "c", "b")])).toEqual(new Set());
  });
  it("a root whose batch has a child of a missing parent is not", () => {
    expect(completedTraces([s("t1", "a", null), s("t1", "c", "missing")])).toEqual(new Set());
  });
  it("decides per trace", () => {
    expect(completedTraces([s("t1", "a", null), s("t2", "b", "x")])).toEqual(new Set(["t1"]));
  });
});
