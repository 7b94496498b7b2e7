/**
 * Golden traces end to end: decode -> normalize -> addContent -> scoreTrace
 * (packages/core's whole scoring pipeline, as the worker runs it), with the
 * run marked failed so attribution runs. Checked against the hand-written
 * expected.json of each recording: per-agent tokens and errors in the score
 * rows, the decisive-error attribution naming the agent whose tool threw, and
 * the modes that need no configuration exactly where the script makes the
 * failure: step repetition (FM-1.3) on the agent of the `repeat` recordings,
 * premature stop (FM-3.1) where the run ends on the failed tool.
 * Recordings with a `scoring` section (the group chat: turns, no tools) have
 * their findings and attribution checked by golden.turns.test.ts instead.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { scoreTrace } from "../../core/src/pipeline/index.ts";
import type { TraceScoreRecord } from "../../core/src/pipeline/record.ts";
import { mastDetectors } from "../../core/src/mast/registry.ts";
import { defaultPriceTable } from "../../core/src/metrics/price-table.ts";
import { decodeExportRequest } from "../src/decode/index.ts";
import { addContent, normalizeSpans } from "../src/normalize/index.ts";

interface Expected {
  agents: Array<{ name: string; inputTokens: number; outputTokens: number; cachedTokens?: number }>;
  realErrors: Array<{ toolName: string; agent: string }>;
  /** MAST findings the scenario is built to raise (absent: none of the modes below). */
  findings?: Array<{ mode: string; agent: string; tool: string; why?: string }>;
  scoring?: unknown;
}

/** Modes that need no configuration (docs/failure-modes.md §3), so a golden run raises them only when its script makes the failure. */
const UNCONFIGURED_MODES = new Set(mastDetectors.flatMap((d) => d.modes.filter((m) => m.needsConfig.length === 0).map((m) => m.mode)));

const goldenRoot = path.join(path.dirname(fileURLToPath(import.meta.url)), "golden");
const cases = readdirSync(goldenRoot, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(path.join(goldenRoot, d.name, "expected.json")))
  .map((d) => d.name)
  .sort();

function score(dir: string): TraceScoreRecord {
  const decoded = decodeExportRequest(new Uint8Array(readFileSync(path.join(dir, "export.json"))), "json");
  const spans = normalizeSpans(decoded.spans).map(addContent);
  return scoreTrace({
    projectId: "golden",
    traceId: spans[0]?.traceId ?? "",
    version: 1,
    spans,
    config: {
      prices: defaultPriceTable,
      agentContracts: [],
      handoffContracts: [],
      milestoneSet: null,
      configuredBaseline: null,
      coordinationWeights: null,
      repetitionK: null,
    },
    outcomeOverride: { success: false },
    baselineRun: null,
    validateSchema: () => ({ valid: true, errors: [] }),
    evaluateMilestone: () => false,
  });
}

describe.each(cases)("golden %s scored end to end", (caseName) => {
  const dir = path.join(goldenRoot, caseName);
  const expected = JSON.parse(readFileSync(path.join(dir, "expected.json"), "utf8")) as Expected;
  const record = score(dir);

  it("scores each agent's tokens", () => {
    const rows = Object.fromEntries(record.agents.map((a) => [a.agent, { input: a.inputTokens, output: a.outputTokens }]));
    expect(rows).toEqual(Object.fromEntries(expected.agents.map((a) => [a.name, { input: a.inputTokens, output: a.outputTokens }])));
    for (const a of expected.agents) {
      if (a.cachedTokens !== undefined)
        expect({ agent: a.name, cached: record.agents.find((r) => r.agent === a.name)?.cachedTokens }).toEqual({ agent: a.name, cached: a.cachedTokens });
    }
  });

  it("counts the failing tool as its agent's only error", () => {
    const errors = Object.fromEntries(record.agents.map((a) => [a.agent, a.errors]));
    const wanted = Object.fromEntries(expected.agents.map((a) => [a.name, expected.realErrors.filter((e) => e.agent === a.name).length]));
    expect(errors).toEqual(wanted);
  });

  if (expected.scoring !== undefined) return;

  it("raises the config-free modes exactly where the script makes the failure", () => {
    expect([...UNCONFIGURED_MODES].sort()).toEqual(["FM-1.3", "FM-1.5", "FM-2.5", "FM-3.1", "FM-3.2", "FM-3.3"]);
    const found = record.findings.filter((f) => UNCONFIGURED_MODES.has(f.mode)).map((f) => ({ mode: f.mode, agent: f.agent }));
    expect(found).toEqual((expected.findings ?? []).map((f) => ({ mode: f.mode, agent: f.agent })));
    for (const wanted of expected.findings ?? []) {
      const finding = record.findings.find((f) => f.mode === wanted.mode && f.agent === wanted.agent);
      expect(finding?.evidence, `${wanted.mode} evidence`).toContain(wanted.tool);
    }
  });

  it("attributes the failed run to the agent whose tool threw", () => {
    const first = record.attributions.find((a) => a.rank === 1);
    const culprit = expected.realErrors[0];
    expect(first).toMatchObject({ method: "first_unrecovered_tool_error", agent: culprit?.agent });
  });
});
