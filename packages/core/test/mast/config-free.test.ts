/**
 * Out of the box (no contract, no milestone set), a failed run still gets the modes
 * its trace shows: each config-free heuristic fires on a failure injected into the
 * clean trace, marked failed, and stays silent on the clean successful one; the
 * heuristics of modes with contract-based detectors stand down once the contract exists.
 */
import { describe, expect, it } from "vitest";
import { scoreTrace } from "../../src/pipeline/index.ts";
import {
  detectErrorPropagation,
  detectInferredVerificationFailures,
  detectMast,
  detectPrematureStop,
  inferVerifiers,
  mastDetectors,
  modeCoverage,
  scoreMilestones,
  type DetectorFinding,
} from "../../src/index.ts";
import type { TraceTrajectories } from "../../src/trajectory/types.ts";
import { config, input } from "../pipeline/fixtures.ts";
import type { SpanSpec } from "../trajectory/builder.ts";
import { clean, cleanSpecs, traj, withSpecs } from "../trajectory/fixtures.ts";

const failed = { outcomeSuccess: false } as const;
const succeeded = { outcomeSuccess: true } as const;
const detectorsOf = (mode: string) => mastDetectors.filter((d) => d.modes.some((m) => m.mode === mode)).map((d) => d.id);
const brief = (fs: DetectorFinding[]) => fs.map((f) => [f.mode, f.agent, f.spanId, f.source, f.confidence]);

/** The researcher's search throws and nobody retries it; the run goes on to the end. */
const searchFails: SpanSpec = { ...(cleanSpecs.find((s) => s.id === "res.q") as SpanSpec), error: "ConnectionError", output: "search backend unavailable" };
/** The clean trace with the researcher's search failed and nothing after it but model calls. */
const gaveUpSpecs = withSpecs(cleanSpecs, [searchFails], ["wri", "wri.llm", "wri.save", "rev", "rev.llm"]);

describe("inferred verification (FM-3.2, FM-3.3 without a contract)", () => {
  it("infers verifiers from name words or verdicts, never the root agent, a lone agent or a word inside another", () => {
    expect(inferVerifiers(clean())).toEqual(new Map([["reviewer", 'the word "reviewer" in its name']]));
    const t = traj([
      { id: "judge", op: "agent", agent: "judge", start: 0, end: 100 },
      { id: "fc", parent: "judge", op: "agent", agent: "FactChecker", start: 1, end: 10 },
      { id: "co", parent: "judge", op: "agent", agent: "checkout_agent", start: 11, end: 20 },
      { id: "so", parent: "judge", op: "agent", agent: "second_opinion", start: 21, end: 30 },
      { id: "so.llm", parent: "so", op: "llm", start: 22, end: 29, output: "fine", content: { verdicts: [{ key: "crux.verdict", value: "pass" }] } },
    ]);
    expect(inferVerifiers(t)).toEqual(
      new Map([
        ["factchecker", 'the word "checker" in its name'],
        ["second_opinion", "its verdict attribute crux.verdict"],
      ]),
    );
    expect(inferVerifiers(traj([{ id: "q", op: "agent", agent: "qa", start: 0, end: 10 }]))).toEqual(new Map());
  });

  it("FM-3.3: an inferred verifier that approved a failed run, below the contract's confidence; silent on a successful run", () => {
    expect(brief(detectInferredVerificationFailures(clean(), failed))).toEqual([["FM-3.3", "reviewer", "rev.llm", "heuristic", 0.5]]);
    expect(detectInferredVerificationFailures(clean(), failed)[0]?.evidence).toContain('inferred from the word "reviewer" in its name');
    expect(detectInferredVerificationFailures(clean(), succeeded)).toEqual([]);
    const verdict = traj(
      withSpecs(cleanSpecs, [
        { ...(cleanSpecs.find((s) => s.id === "rev.llm") as SpanSpec), content: { verdicts: [{ key: "crux.verdict", value: "approved" }] } },
      ]),
    );
    expect(brief(detectInferredVerificationFailures(verdict, failed))).toEqual([["FM-3.3", "reviewer", "rev.llm", "heuristic", 0.75]]);
  });

  it("FM-3.2: the artifact written again after the inferred verifier's review", () => {
    const rewritten = traj(
      withSpecs(
        cleanSpecs,
        [{ id: "wri.save2", parent: "wri", op: "tool", tool: "write_file", start: 590, end: 595, args: { path: "report.md" } }],
        ["rev", "rev.llm"],
      ).concat([
        { id: "rev", parent: "lead", op: "agent", agent: "reviewer", start: 500, end: 560 },
        { id: "rev.llm", parent: "rev", op: "llm", start: 510, end: 550, output: "Approved" },
      ]),
    );
    expect(brief(detectInferredVerificationFailures(rewritten, succeeded))).toEqual([["FM-3.2", "writer", "wri.save2", "heuristic", 0.4]]);
    expect(detectInferredVerificationFailures(clean(), succeeded)).toEqual([]);
  });

  it("stands down when a contract names a verifier: the contract's findings only, unchanged", () => {
    const reviewer = [{ agent: "reviewer", role: "review", isVerifier: true }];
    expect(brief(detectMast(clean(), { ...failed, agentContracts: reviewer }).findings)).toEqual([["FM-3.3", "reviewer", "rev.llm", "heuristic", 0.7]]);
    // A contract naming another agent as the verifier: that one is the verifier, not a guess from names.
    const other = [{ agent: "editor", role: "edit", isVerifier: true }];
    expect(detectMast(clean(), { ...failed, agentContracts: other }).findings.filter((f) => f.mode === "FM-3.3")).toEqual([]);
  });
});

describe("premature stop (FM-3.1 without milestones)", () => {
  it("fires when a failed run stopped after an unrecovered error with no action after it", () => {
    const found = detectPrematureStop(traj(gaveUpSpecs), failed);
    expect(brief(found)).toEqual([["FM-3.1", "lead", "final", "heuristic", 0.5]]);
    expect(found[0]?.evidence).toContain("researcher's web_search failed at step 1 (ConnectionError)");
  });

  it("is silent on a successful run, a crash, a recovered error, an error followed by other work, and the clean trace", () => {
    expect(detectPrematureStop(traj(gaveUpSpecs), succeeded)).toEqual([]);
    expect(detectPrematureStop(traj(gaveUpSpecs), {})).toEqual([]);
    expect(detectPrematureStop(clean(), failed)).toEqual([]);
    const crash = withSpecs(gaveUpSpecs, [{ ...(cleanSpecs.find((s) => s.id === "final") as SpanSpec), error: "RuntimeError" }]);
    expect(detectPrematureStop(traj(crash), failed)).toEqual([]);
    // The writer still wrote the report after the failed search: the run did not give up there.
    expect(detectPrematureStop(traj(withSpecs(cleanSpecs, [searchFails])), failed)).toEqual([]);
    const retried = withSpecs(gaveUpSpecs, [{ ...(cleanSpecs.find((s) => s.id === "res.q") as SpanSpec), id: "res.q2", start: 62, end: 65 }]);
    expect(detectPrematureStop(traj(retried), failed)).toEqual([]);
  });

  it("fires when the last model call asked for a tool that never ran", () => {
    const pending = withSpecs(cleanSpecs, [{ ...(cleanSpecs.find((s) => s.id === "final") as SpanSpec), finishReasons: ["tool_calls"] }]);
    expect(brief(detectPrematureStop(traj(pending), failed))).toEqual([["FM-3.1", "lead", "final", "heuristic", 0.5]]);
    expect(detectPrematureStop(traj(pending), failed)[0]?.evidence).toContain('finish reason "tool_calls"');
  });

  it("fires when the last output announces a next step that never came, not on a closing phrase", () => {
    const saying = (output: string) => traj(withSpecs(cleanSpecs, [{ ...(cleanSpecs.find((s) => s.id === "final") as SpanSpec), output }]));
    const announced = detectPrematureStop(saying("I have the draft. Now I’ll publish it to the site."), failed);
    expect(brief(announced)).toEqual([["FM-3.1", "lead", "final", "heuristic", 0.4]]);
    expect(detectPrematureStop(saying("Next, I will check the figures"), failed)).toHaveLength(1);
    expect(detectPrematureStop(saying("Report delivered. Let me know if you need more."), failed)).toEqual([]);
    expect(detectPrematureStop(saying("Shall I publish it? Let me publish it?"), failed)).toEqual([]);
    expect(detectPrematureStop(saying("Let me publish it."), succeeded)).toEqual([]);
  });

  it("stands down when milestones or a completion condition say what done is", () => {
    const t = traj(gaveUpSpecs);
    const evaluate = () => true;
    const milestones = scoreMilestones(t, [{ id: "m", weight: 1, check: "x" }], evaluate);
    const modes = (o: Parameters<typeof detectMast>[1]) => detectMast(t, { ...failed, ...o }).findings.filter((f) => f.mode === "FM-3.1");
    expect(modes({})).toHaveLength(1);
    expect(modes({ milestones })).toEqual([]);
    expect(modes({ agentContracts: [{ agent: "lead", role: "lead", completionCondition: "x" }], evaluate })).toEqual([]);
  });
});

describe("error propagation (FM-3.2 from cascading errors)", () => {
  const dependent: SpanSpec = { id: "res.fetch", parent: "res", op: "tool", tool: "fetch_page", start: 62, end: 65, error: "HTTP 404", args: { url: "" } };
  const writerFails: SpanSpec = { ...(cleanSpecs.find((s) => s.id === "wri.save") as SpanSpec), error: "EmptyContent" };

  it("fires when steps building on an unrecovered error fail too, citing the first error only", () => {
    const t = traj(withSpecs(cleanSpecs, [searchFails, dependent, writerFails]));
    const found = detectErrorPropagation(t);
    expect(brief(found)).toEqual([["FM-3.2", "researcher", "res.q", "heuristic", 0.5]]);
    expect(found[0]?.evidence).toContain("step 2 fetch_page");
  });

  it("is silent on the clean trace, a lone error, and retries of the failed call", () => {
    expect(detectErrorPropagation(clean())).toEqual([]);
    expect(detectErrorPropagation(traj(withSpecs(cleanSpecs, [searchFails])))).toEqual([]);
    const retries = withSpecs(cleanSpecs, [searchFails, { ...searchFails, id: "res.q2", start: 62, end: 65 }]);
    expect(detectErrorPropagation(traj(retries))).toEqual([]);
  });
});

describe("a failed run with no configuration", () => {
  const none = (t: TraceTrajectories) => detectMast(t, failed).findings.map((f) => f.mode);

  it("gets a MAST finding for an unrecovered tool error (through scoreTrace, as the worker scores it)", () => {
    const record = scoreTrace(input(gaveUpSpecs, { config: config(), outcomeOverride: { success: false } }));
    expect(record.findings.map((f) => f.mode)).toContain("FM-3.1");
    // The same trace as a success: the error alone is no mode.
    expect(scoreTrace(input(gaveUpSpecs, { config: config(), outcomeOverride: { success: true } })).findings).toEqual([]);
  });

  it("gets FM-1.5 for a cap, FM-1.3 for a repeated call and FM-2.5 for an ignored handoff", () => {
    const capped = withSpecs(cleanSpecs, [{ ...(cleanSpecs[0] as SpanSpec), error: "MaxTurnsExceeded" }]);
    expect(none(traj(capped))).toContain("FM-1.5");
    const search = (id: string, start: number): SpanSpec => ({
      id,
      parent: "res",
      op: "tool",
      tool: "web_search",
      start,
      end: start + 5,
      args: { q: "solar" },
    });
    expect(none(traj(withSpecs(cleanSpecs, [search("res.q", 30), search("r2", 105), search("r3", 120)])))).toContain("FM-1.3");
    const ignored = withSpecs(
      cleanSpecs,
      [{ id: "wri.llm", parent: "wri", op: "llm", start: 310, end: 400, output: "Here is a poem about autumn leaves" }],
      ["wri.save"],
    );
    expect(none(traj(ignored))).toContain("FM-2.5");
    expect(none(clean())).toEqual(["FM-3.3"]); // the reviewer approved a run that failed
    expect(detectMast(clean(), succeeded).findings).toEqual([]);
  });

  it("says which detector produced each finding: two detectors of FM-3.2 on one trace, and the contract detector once it is configured", () => {
    // The artifact rewritten after the (inferred) review, and the researcher's failed search taking the fetch down with it.
    const both = traj(
      withSpecs(
        cleanSpecs,
        [
          searchFails,
          { id: "res.fetch", parent: "res", op: "tool", tool: "fetch_page", start: 62, end: 65, error: "HTTP 404", args: { url: "" } },
          { ...(cleanSpecs.find((s) => s.id === "wri.save") as SpanSpec), error: "EmptyContent" },
          { id: "wri.save2", parent: "wri", op: "tool", tool: "write_file", start: 590, end: 595, args: { path: "report.md" } },
        ],
        ["rev", "rev.llm"],
      ).concat([
        { id: "rev", parent: "lead", op: "agent", agent: "reviewer", start: 500, end: 560 },
        { id: "rev.llm", parent: "rev", op: "llm", start: 510, end: 550, output: "Approved" },
      ]),
    );
    const of32 = (o: Parameters<typeof detectMast>[1]) =>
      detectMast(both, { ...succeeded, ...o })
        .findings.filter((f) => f.mode === "FM-3.2")
        .map((f) => [f.detector, f.spanId]);
    expect(of32({})).toEqual([
      ["error-propagation", "res.q"],
      ["inferred-verification", "wri.save2"],
    ]);
    const reviewer = [{ agent: "reviewer", role: "review", isVerifier: true }];
    expect(of32({ agentContracts: reviewer })).toEqual([
      ["error-propagation", "res.q"],
      ["verification", "wri.save2"],
    ]);
    // Every finding that leaves detectMast names a detector of the list that reports its mode.
    for (const f of detectMast(both, failed).findings) expect(detectorsOf(f.mode), f.mode).toContain(f.detector);
  });

  it("has FM-3.1, FM-3.2 and FM-3.3 measured by the heuristics; configured, by the contract detectors only", () => {
    const byMode = (c: ReturnType<typeof modeCoverage>) => Object.fromEntries(c.map((m) => [m.mode, m.detectors]));
    const none = byMode(modeCoverage(new Set()));
    expect(none).toMatchObject({
      "FM-3.1": ["premature-stop"],
      "FM-3.2": ["inferred-verification", "error-propagation"],
      "FM-3.3": ["inferred-verification"],
    });
    const configured = byMode(modeCoverage(new Set(["agentContract.isVerifier", "milestoneSet.required"])));
    expect(configured).toMatchObject({
      "FM-3.1": ["premature-termination"],
      "FM-3.2": ["verification", "error-propagation"],
      "FM-3.3": ["verification"],
    });
  });
});
