/**
 * Labelled failed traces, shape "verifier_pipeline": stages in sequence with
 * a declared verifier (the coding crew's tester; a data pipeline extractor →
 * transformer → checker → publisher). Each label was decided from the story
 * before the scorer ran; `why` gives the reason in one line.
 */
import type { AgentContract, HandoffContract } from "../../src/mast/contracts.ts";
import { withSpecs } from "../trajectory/fixtures.ts";
import type { SpanSpec } from "../trajectory/builder.ts";
import { args, coding, codingCase, out, result, type LabelledCase, type SucceededCase } from "./attribution-crews.ts";

const code = (id: string): SpanSpec => coding().find((s) => s.id === id) as SpanSpec;

const ETL_GOAL = "Publish the 2023 sales totals per region in EUR to the dashboard";
function etl(): SpanSpec[] {
  return [
    { id: "pl", op: "agent", agent: "pipeline", start: 0, end: 1000, input: ETL_GOAL },
    { id: "ex", parent: "pl", op: "agent", agent: "extractor", start: 10, end: 200, input: "Load the 2023 sales export" },
    {
      id: "ex.read",
      parent: "ex",
      op: "tool",
      tool: "read_csv",
      start: 11,
      end: 60,
      ...args({ path: "exports/sales_2023.csv" }),
      ...result("12,400 rows: region, amount_usd, date (2023)"),
    },
    {
      id: "ex.llm",
      parent: "ex",
      op: "llm",
      model: "gpt-4o-mini",
      start: 61,
      end: 90,
      tokens: { input: 300, output: 40 },
      ...out("Loaded 12,400 sales rows for 2023 with amounts in USD"),
    },
    { id: "tr", parent: "pl", op: "agent", agent: "transformer", start: 210, end: 500, input: "Sum the 2023 sales per region and convert to EUR at 0.92" },
    {
      id: "tr.sum",
      parent: "tr",
      op: "tool",
      tool: "run_sql",
      start: 211,
      end: 300,
      ...args({ sql: "select region, sum(amount_usd) * 0.92 as total_eur from sales group by region" }),
      ...result("4 regions: North 1.2M EUR, South 0.9M EUR, East 0.7M EUR, West 1.1M EUR"),
    },
    {
      id: "tr.llm",
      parent: "tr",
      op: "llm",
      model: "gpt-4o-mini",
      start: 301,
      end: 340,
      tokens: { input: 400, output: 50 },
      ...out("Totals per region in EUR: North 1.2M, South 0.9M, East 0.7M, West 1.1M"),
    },
    { id: "ck", parent: "pl", op: "agent", agent: "checker", start: 510, end: 700, input: "Check the regional totals: 4 regions, EUR, 2023 only" },
    {
      id: "ck.validate",
      parent: "ck",
      op: "tool",
      tool: "validate_table",
      start: 511,
      end: 560,
      ...args({ expect: { regions: 4, currency: "EUR" } }),
      ...result("4 regions, currency EUR, year 2023: all checks passed"),
    },
    {
      id: "ck.llm",
      parent: "ck",
      op: "llm",
      model: "gpt-4o-mini",
      start: 561,
      end: 600,
      tokens: { input: 300, output: 20 },
      ...out("Approved: 4 regions in EUR for 2023"),
    },
    { id: "pu", parent: "pl", op: "agent", agent: "publisher", start: 710, end: 900, input: "Publish the approved regional totals" },
    {
      id: "pu.publish",
      parent: "pu",
      op: "tool",
      tool: "publish_dashboard",
      start: 711,
      end: 800,
      ...args({ board: "sales-2023" }),
      ...result("published sales-2023"),
    },
    {
      id: "pl.final",
      parent: "pl",
      op: "llm",
      model: "gpt-4o-mini",
      start: 910,
      end: 990,
      tokens: { input: 300, output: 30 },
      ...out("The 2023 regional sales totals in EUR are on the dashboard"),
    },
  ];
}
const at = (id: string): SpanSpec => etl().find((s) => s.id === id) as SpanSpec;
const etlRoles: AgentContract[] = [{ agent: "checker", role: "verify", isVerifier: true }];
const etlCase = (specs: SpanSpec[]) => ({ shape: "verifier_pipeline" as const, specs, agentContracts: etlRoles, handoffContracts: [] as HandoffContract[] });
const lint = (id: string, start: number): SpanSpec => ({
  id,
  parent: "c",
  op: "tool",
  tool: "run_linter",
  start,
  end: start + 1,
  ...args({ path: "auth/session.ts" }),
  ...result("2 warnings"),
});

export const verifierPipelineCases: LabelledCase[] = [
  {
    name: "coding: coder sets the timeout to 30 seconds; tests fail but the tester reports them passing",
    ...codingCase(
      withSpecs(coding(), [
        { ...code("c.llm"), ...out("Patch: set the session timeout in auth/session.ts to 30 seconds") },
        { ...code("x.run"), ...result("9 passed, 3 failed") },
        { ...code("x.llm"), ...out("All tests pass; regression test added for the session timeout") },
      ]),
    ),
    label: { agent: "coder", spanId: "c.llm" },
    why: "the wrong patch comes first; the tester's false pass only lets it through",
  },
  {
    name: "coding: tests pass but the tester rejects the fix; the planner reverts it",
    ...codingCase(
      withSpecs(coding(), [
        { ...code("x.llm"), ...out("Rejected: the timeout fix is wrong, revert it") },
        { ...code("p.final"), ...out("Reverted the timeout change; the login timeout bug is not fixed") },
      ]),
    ),
    label: { agent: "tester", spanId: "x.llm" },
    why: "patch and tests were right; the tester's wrong rejection undid the fix",
  },
  {
    name: "coding: the tester's regression test asserts nothing",
    ...codingCase(
      withSpecs(coding(), [
        { ...code("x.write"), ...args({ path: "test/session.test.ts", body: "expect(true).toBe(true)" }) },
        { ...code("x.llm"), ...out("Regression test added (expect true), session timeout verified") },
      ]),
    ),
    label: { agent: "tester", spanId: "x.write" },
    why: "the task asks for a regression test; the vacuous test is the tester's write",
  },
  {
    name: "coding: coder lints the same file again and again and never edits",
    ...codingCase(withSpecs(coding(), [lint("c.l1", 81), lint("c.l2", 83), lint("c.l3", 85), lint("c.l4", 87)], ["c.edit"])),
    label: { agent: "coder", spanId: "c.l2" },
    why: "one lint is reasonable; the repeated identical lint is where the coder stops making progress",
  },
  {
    name: "etl: extractor loads the 2022 export",
    ...etlCase(
      withSpecs(etl(), [{ ...at("ex.read"), ...args({ path: "exports/sales_2022.csv" }), ...result("11,900 rows: region, amount_usd, date (2022)") }]),
    ),
    label: { agent: "extractor", spanId: "ex.read" },
    why: "the wrong file is read first; every later stage processes the wrong year correctly",
  },
  {
    name: "etl: transformer skips the EUR conversion it was told to do; the checker approves",
    ...etlCase(
      withSpecs(etl(), [
        {
          ...at("tr.sum"),
          ...args({ sql: "select region, sum(amount_usd) as total from sales group by region" }),
          ...result("4 regions: North 1.3M, South 1.0M, East 0.8M, West 1.2M"),
        },
        { ...at("tr.llm"), ...out("Totals per region: North 1.3M, South 1.0M, East 0.8M, West 1.2M") },
      ]),
    ),
    label: { agent: "transformer", spanId: "tr.sum" },
    why: "the directive reached the transformer; its query leaves the amounts in USD",
  },
  {
    name: "etl: transformer drops the West region; the checker's validation tool times out and it approves anyway",
    ...etlCase(
      withSpecs(etl(), [
        {
          ...at("tr.sum"),
          ...args({ sql: "select region, sum(amount_usd) * 0.92 as total_eur from sales where region <> 'West' group by region" }),
          ...result("3 regions: North 1.2M EUR, South 0.9M EUR, East 0.7M EUR"),
        },
        { ...at("tr.llm"), ...out("Totals per region in EUR: North 1.2M, South 0.9M, East 0.7M") },
        {
          id: "ck.validate",
          parent: "ck",
          op: "tool",
          tool: "validate_table",
          start: 511,
          end: 560,
          error: "timeout",
          ...args({ expect: { regions: 4, currency: "EUR" } }),
        },
      ]),
    ),
    label: { agent: "transformer", spanId: "tr.sum" },
    why: "the missing region is the transformer's; the checker's timeout only hid it",
  },
  {
    name: "etl: transformer converts at 9.2 instead of 0.92; nothing else looks wrong",
    ...etlCase(
      withSpecs(etl(), [
        {
          ...at("tr.sum"),
          ...args({ sql: "select region, sum(amount_usd) * 9.2 as total_eur from sales group by region" }),
          ...result("4 regions: North 12M EUR, South 9M EUR, East 7M EUR, West 11M EUR"),
        },
        { ...at("tr.llm"), ...out("Totals per region in EUR: North 12M, South 9M, East 7M, West 11M") },
      ]),
    ),
    label: { agent: "transformer", spanId: "tr.sum" },
    why: "the wrong rate is in the transformer's query; the checker's tool does not check magnitudes",
  },
  {
    name: "etl: the dashboard publish fails and is never retried",
    ...etlCase(
      withSpecs(etl(), [
        {
          id: "pu.publish",
          parent: "pu",
          op: "tool",
          tool: "publish_dashboard",
          start: 711,
          end: 800,
          error: "dashboard API 500",
          ...args({ board: "sales-2023" }),
        },
      ]),
    ),
    label: { agent: "publisher", spanId: "pu.publish" },
    why: "every stage before was right; nothing is published after the failed call",
  },
  {
    name: "etl: the checker's tool reports 3 regions and the checker approves",
    ...etlCase(
      withSpecs(etl(), [
        { ...at("ex.read"), ...args({ path: "exports/sales_2023_partial.csv" }), ...result("9,100 rows: region, amount_usd, date (2023), West missing") },
        { ...at("tr.sum"), ...result("3 regions: North 1.2M EUR, South 0.9M EUR, East 0.7M EUR") },
        { ...at("tr.llm"), ...out("Totals per region in EUR: North 1.2M, South 0.9M, East 0.7M") },
        { ...at("ck.validate"), ...result("3 regions (expected 4): check failed") },
      ]),
    ),
    label: { agent: "extractor", spanId: "ex.read" },
    why: "the partial export is read first; the checker's approval of a failed check lets it through but comes later",
  },
];

export const verifierPipelineSucceeded: SucceededCase[] = [
  { name: "coding: the clean run", ...codingCase(coding()) },
  { name: "etl: the clean run", ...etlCase(etl()) },
];
