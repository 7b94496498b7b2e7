import { describe, expect, it } from "vitest";
import { slackBody } from "../src/index.ts";

describe("slackBody", () => {
  it("has a text fallback and header, fields and context blocks", () => {
    const body = slackBody({ id: "evt_1", type: "alert.fired", rule: "cost > $5", project: "p1", value: 7.25 });
    expect(body).toEqual({
      text: "Crux: alert.fired (rule: cost &gt; $5, project: p1, value: 7.25)",
      blocks: [
        { type: "header", text: { type: "plain_text", text: "Crux: alert.fired" } },
        {
          type: "section",
          fields: [
            { type: "mrkdwn", text: "*rule*\ncost &gt; $5" },
            { type: "mrkdwn", text: "*project*\np1" },
            { type: "mrkdwn", text: "*value*\n7.25" },
          ],
        },
        { type: "context", elements: [{ type: "mrkdwn", text: "event evt_1" }] },
      ],
    });
  });

  it("an event with only id and type has no section; objects are shown as JSON; <, > and & are escaped", () => {
    expect(slackBody({ id: "e", type: "ping" }).blocks.map((b) => b.type)).toEqual(["header", "context"]);
    const body = slackBody({ id: "e", type: "t", where: { agent: "<a&b>" } });
    expect(body.blocks[1]).toEqual({ type: "section", fields: [{ type: "mrkdwn", text: '*where*\n{"agent":"&lt;a&amp;b&gt;"}' }] });
  });

  it("keeps within Slack's limits: 10 fields, and says how many were left out", () => {
    const event: Record<string, unknown> = { id: "e", type: "t" };
    for (let i = 0; i < 12; i++) event[`f${i}`] = "x".repeat(5000);
    const body = slackBody(event as { id: string; type: string });
    const section = body.blocks[1];
    expect(section?.type === "section" ? section.fields : []).toHaveLength(10);
    for (const field of section?.type === "section" ? (section.fields ?? []) : []) expect(field.text.length).toBeLessThanOrEqual(2000);
    expect(body.blocks[2]).toEqual({ type: "context", elements: [{ type: "mrkdwn", text: "event e · 2 more fields omitted" }] });
  });
});
