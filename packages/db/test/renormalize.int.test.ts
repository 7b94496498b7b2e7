/**
 * renormalizeStoredSpans: spans stored with the columns of an earlier normalizer are read
 * right after it runs. The trace is the recorded LangGraph (Python, OpenInference) export,
 * stored with the columns the normalizer used to give it: every OpenInference AGENT span an
 * agent named after its span (the react node "agent", the tool "transfer_to_booking_agent"),
 * and, to move a counter, the failing tool's error missed.
 */
import { readFileSync } from "node:fs";
import { attributeAgents } from "@crux/core";
import { addContent, decodeExportRequest, normalizeSpan, normalizeSpans } from "@crux/otlp";
import { testDatabases } from "@crux/testkit";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredSpan } from "@crux/core";
import {
  ensureProject,
  getTraceSummary,
  insertSpanBatch,
  listTraceSpans,
  persistTraceScores,
  renormalizeStoredSpans,
  schema,
  type Database,
} from "../src/index.ts";
import { projectId } from "./fixtures.ts";
import { record } from "./score-record.ts";

const recorded = decodeExportRequest(new Uint8Array(readFileSync(new URL("../../otlp/test/golden-python/langgraph/base.bin", import.meta.url))), "protobuf");

/** The spans as the earlier normalizer stored them. */
function storedByEarlierNormalizer(): StoredSpan[] {
  return normalizeSpans(recorded.spans).map((s) => {
    if (s.attributes["openinference.span.kind"] === "AGENT") {
      return { ...s, operation: "agent", agentName: s.name, toolName: null, handoffFrom: null, handoffTo: null };
    }
    return s.isError ? { ...s, isError: false, errorType: null } : s;
  });
}

describe.each(testDatabases())("renormalizeStoredSpans on $name", ({ create }) => {
  let database: Database;
  beforeAll(async () => {
    database = await create();
  });
  afterAll(async () => {
    await database.close();
  });

  it("rewrites the stale columns, moves the trace's counters, and requests a score that will not be skipped", async () => {
    const p = projectId();
    const other = projectId();
    await ensureProject(database, p, "renormalize");
    await ensureProject(database, other, "untouched");
    const stale = storedByEarlierNormalizer();
    const traceId = stale[0]!.traceId;
    await insertSpanBatch(database, p, stale);
    await insertSpanBatch(database, other, stale);
    await persistTraceScores(database, p, { ...record(1), traceId }, { inputHash: "scored-with-the-old-columns" });
    await database.db.update(schema.traces).set({ scoreRequestedAt: null });

    const before = await listTraceSpans(database, p, traceId);
    expect(attributeAgents(before.map(addContent)).agents.map((a) => a.name)).toContain("call_agent");
    expect((await getTraceSummary(database, p, traceId))!.errorCount).toBe(0);

    const result = await renormalizeStoredSpans(database, { normalize: normalizeSpan, projectId: p });
    const agentSpans = stale.filter((s) => s.operation === "agent").length;
    expect(result).toEqual({ traces: 1, spans: stale.length, spansChanged: agentSpans + 1, tracesChanged: 1 });

    const after = await listTraceSpans(database, p, traceId);
    expect(after.filter((s) => s.operation === "agent")).toEqual([]);
    expect(after.find((s) => s.name === "transfer_to_booking_agent")).toMatchObject({
      operation: "handoff",
      toolName: "transfer_to_booking_agent",
      handoffTo: "booking_agent",
    });
    expect(after.filter((s) => s.isError).map((s) => s.toolName)).toEqual(["get_quote"]);
    expect(
      attributeAgents(after.map(addContent))
        .agents.map((a) => a.name)
        .sort(),
    ).toEqual(["booking_agent", "carrier_researcher", "logistics_planner"]);

    const summary = (await getTraceSummary(database, p, traceId))!;
    expect(summary).toMatchObject({ errorCount: 1, hasError: true, toolCalls: after.filter((s) => s.operation === "tool").length });
    expect(summary.scoreRequestedAt).toBeInstanceOf(Date);
    const [score] = await database.db
      .select({ inputHash: schema.traceScores.inputHash })
      .from(schema.traceScores)
      .where(and(eq(schema.traceScores.projectId, p), eq(schema.traceScores.traceId, traceId)));
    expect(score?.inputHash).toBeNull();

    // Another project was left alone, and a second run finds nothing left to change.
    expect((await listTraceSpans(database, other, traceId)).filter((s) => s.operation === "agent").length).toBe(agentSpans);
    expect((await getTraceSummary(database, other, traceId))!.scoreRequestedAt).toBeNull();
    expect(await renormalizeStoredSpans(database, { normalize: normalizeSpan, projectId: p })).toEqual({
      traces: 1,
      spans: stale.length,
      spansChanged: 0,
      tracesChanged: 0,
    });
  });
});
