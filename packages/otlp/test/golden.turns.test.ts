/**
 * Golden traces through scoring, turns first: decode -> normalize -> scoreTrace, checked
 * against the `scoring` section of expected.json (written by hand from the
 * scenario script) where a recording has one. Every recording is checked for
 * message steps: only turns (agent spans with nothing traced below them) are,
 * so the framework recordings, whose agents call models and tools, have none.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { defaultPriceTable, scoreTrace, type AgentContract, type NormalizedSpan, type ScoreTraceInput, type TraceScoreRecord } from "@crux/core";
import { decodeExportRequest } from "../src/decode/index.ts";
import { normalizeSpans, addContent } from "../src/normalize/index.ts";

interface ExpectedFinding {
  mode: string;
  agent: string;
  stepIndex: number;
}
interface ExpectedScoring {
  outcomeSuccess: boolean;
  steps: Array<{ kind: string; agent: string }>;
  turnMessages: number;
  findings: ExpectedFinding[];
  findingsWithVerifierContract: ExpectedFinding[];
  verifier: string;
  topAttribution: { method: string; agent: string; stepIndex: number };
}

const goldenRoot = path.join(path.dirname(fileURLToPath(import.meta.url)), "golden");
const cases = readdirSync(goldenRoot, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(path.join(goldenRoot, d.name, "export.json")))
  .map((d) => d.name)
  .sort();

function spansOf(dir: string): NormalizedSpan[] {
  const decoded = decodeExportRequest(new Uint8Array(readFileSync(path.join(dir, "export.json"))), "json");
  return normalizeSpans(decoded.spans).map(addContent);
}

function score(spans: NormalizedSpan[], agentContracts: AgentContract[] = []): TraceScoreRecord {
  const input: ScoreTraceInput = {
    projectId: "p",
    traceId: spans[0]?.traceId ?? "",
    version: 1,
    spans,
    config: {
      prices: defaultPriceTable,
      agentContracts,
      handoffContracts: [],
      milestoneSet: null,
      configuredBaseline: null,
      coordinationWeights: null,
      repetitionK: null,
    },
    outcomeOverride: null,
    baselineRun: null,
    validateSchema: () => ({ valid: true, errors: [] }),
    evaluateMilestone: () => false,
  };
  return scoreTrace(input);
}

const stepsOf = (record: TraceScoreRecord) =>
  record.trajectories.flatMap((a) => a.steps.map((s) => ({ ...s, agent: a.agent }))).sort((a, b) => a.index - b.index);
const findingsOf = (record: TraceScoreRecord) => record.findings.map((f) => ({ mode: f.mode, agent: f.agent, stepIndex: f.stepIndex }));

describe.each(cases)("golden %s through scoring", (caseName) => {
  const dir = path.join(goldenRoot, caseName);
  const expected = (JSON.parse(readFileSync(path.join(dir, "expected.json"), "utf8")) as { scoring?: ExpectedScoring }).scoring;
  const spans = spansOf(dir);
  const record = score(spans);

  it("makes message steps only of turns", () => {
    const messages = stepsOf(record).filter((s) => s.kind === "message");
    expect(messages.length).toBe(expected?.steps.filter((s) => s.kind === "message").length ?? 0);
  });

  if (expected === undefined) return;

  it("reads every turn as a step of its speaker, in order", () => {
    expect(stepsOf(record).map((s) => ({ kind: s.kind, agent: s.agent }))).toEqual(expected.steps);
    expect(record.run.success).toBe(expected.outcomeSuccess);
  });

  it("finds the injected failure, and the verifier's when a contract names it", () => {
    expect(findingsOf(record)).toEqual(expected.findings);
    const withContract = score(spans, [{ agent: expected.verifier, role: "verify", isVerifier: true }]);
    expect(findingsOf(withContract)).toEqual(expected.findingsWithVerifierContract);
  });

  it("attributes the failure to the agent and turn the conversation shows", () => {
    expect(record.attributions.length).toBeGreaterThan(0);
    const top = record.attributions[0];
    expect({ method: top?.method, agent: top?.agent, stepIndex: top?.stepIndex }).toEqual(expected.topAttribution);
    expect(top?.spanId).toBe(stepsOf(record)[expected.topAttribution.stepIndex]?.spanId);
    expect(top?.confidence).toBeGreaterThan(0);
  });
});
