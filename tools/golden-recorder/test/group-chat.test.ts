import { beforeAll, describe, expect, it } from "vitest";
import { GROUP_CHAT_TASK, GROUP_CHAT_TURNS, recordGroupChat } from "../src/group-chat.ts";
import { allSpans, attr, type ExportJson, type ExportSpan } from "../src/otel.ts";
import { expectNoMachineSpecificValues } from "./helpers.ts";

describe("group chat scenario (turns as invoke_agent spans, no model spans)", () => {
  let json: ExportJson;
  let spans: ExportSpan[];
  beforeAll(async () => {
    json = await recordGroupChat();
    spans = allSpans(json);
  });

  const root = () => spans.find((s) => s.parentSpanId === undefined || s.parentSpanId === "") as ExportSpan;
  const turns = () => spans.filter((s) => s !== root()).sort((a, b) => Number(BigInt(a.startTimeUnixNano) - BigInt(b.startTimeUnixNano)));

  it("holds the task and the failed outcome on the manager's root span", () => {
    expect(root().name).toBe("invoke_agent group_chat_manager");
    expect(String(attr(root(), "gen_ai.input.messages"))).toContain(GROUP_CHAT_TASK);
    expect(attr(root(), "crux.outcome.success")).toBe(false);
  });

  it("traces one invoke_agent span per turn under the root, in speaking order, each with its text", () => {
    expect(turns().map((s) => [s.name, s.parentSpanId, attr(s, "gen_ai.operation.name")])).toEqual(
      GROUP_CHAT_TURNS.map((t) => [`invoke_agent ${t.speaker}`, root().spanId, "invoke_agent"]),
    );
    turns().forEach((s, i) => expect(String(attr(s, "gen_ai.output.messages"))).toContain(GROUP_CHAT_TURNS[i]?.text));
    for (let i = 1; i < turns().length; i++) {
      expect(BigInt(turns()[i]?.startTimeUnixNano ?? 0) >= BigInt(turns()[i - 1]?.endTimeUnixNano ?? 0)).toBe(true);
    }
  });

  it("has no model or tool span, no usage and no error", () => {
    expect(spans.every((s) => attr(s, "gen_ai.operation.name") === "invoke_agent")).toBe(true);
    expect(spans.some((s) => s.attributes?.some((a) => a.key.startsWith("gen_ai.usage.")))).toBe(false);
    expect(spans.filter((s) => s.status?.code === 2)).toEqual([]);
    expectNoMachineSpecificValues(json);
  });
});
