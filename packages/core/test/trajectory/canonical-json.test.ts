import { describe, expect, it } from "vitest";
import { canonicalArgs, canonicalJson } from "../../src/trajectory/index.ts";

describe("canonical JSON", () => {
  it("sorts object keys at every depth, so equal arguments give equal strings", () => {
    expect(canonicalArgs('{"z":1,"a":{"y":2,"x":1}}')).toBe('{"a":{"x":1,"y":2},"z":1}');
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[{"c":2,"d":1}]}');
  });

  it("keeps non-JSON text trimmed and drops empty values", () => {
    expect(canonicalArgs("{not json")).toBe("{not json");
    expect(canonicalArgs("  plain text ")).toBe("plain text");
    expect(canonicalArgs("  ")).toBeNull();
    expect(canonicalArgs(null)).toBeNull();
  });
});
