/**
 * Hand-labelled failed traces for measuring decisive-error attribution
 * (docs/attribution-accuracy.md). These first 20 were written with the rules
 * in mind, on three crews (research, support, coding); each injects one
 * failure and records, decided before looking at the scorer's output, which
 * agent made the decisive mistake and at which span (the first step after
 * which the failure was inevitable, as in Who&When). Some are adversarial on
 * purpose. The later cases, one file per system shape, were written from a
 * story alone; `labelledCases` gathers them all.
 */
import { cleanSpecs, withSpecs } from "../trajectory/fixtures.ts";
import type { SpanSpec } from "../trajectory/builder.ts";
import { groupChatCases, groupChatSucceeded } from "./attribution-cases-group-chat.ts";
import { supervisorCases, supervisorSucceeded } from "./attribution-cases-supervisor.ts";
import { toolCrewCases, toolCrewSucceeded } from "./attribution-cases-tool-crew.ts";
import { verifierPipelineCases, verifierPipelineSucceeded } from "./attribution-cases-verifier-pipeline.ts";
import {
  args,
  CODER_MESSAGE,
  coding,
  codingCase,
  out,
  result,
  research,
  searchCall,
  support,
  supportCase,
  type LabelledCase,
  type SucceededCase,
} from "./attribution-crews.ts";

const firstCases: LabelledCase[] = [
  // --- a code rule is meant to catch these ---
  {
    name: "research: researcher's page fetch fails and is never retried",
    kind: "rule",
    ...research(withSpecs(cleanSpecs, [{ id: "res.fetch", parent: "res", op: "tool", tool: "fetch_page", start: 62, end: 66, error: "HTTP 503" }])),
    label: { agent: "researcher", spanId: "res.fetch" },
    why: "without the page the researcher has nothing to report; the failed fetch is never retried",
  },
  {
    name: "research: writer's save fails, the report is never written",
    kind: "rule",
    ...research(withSpecs(cleanSpecs, [{ id: "wri.save", parent: "wri", op: "tool", tool: "write_file", start: 410, end: 420, error: "EACCES" }])),
    label: { agent: "writer", spanId: "wri.save" },
    why: "the report exists only in the writer's draft once its save fails for good",
  },
  {
    name: "research: lead drops the word limit when briefing the writer",
    kind: "rule",
    ...research(
      withSpecs(cleanSpecs, [
        {
          ...(cleanSpecs.find((s) => s.id === "wri") as SpanSpec),
          input: "Write the report on German solar efficiency (20%, Fraunhofer ISE); cite sources",
        },
      ]),
    ),
    label: { agent: "lead", spanId: "wri" },
    why: "the writer never sees the limit; the lead's briefing (the writer's invocation) is where it is lost",
  },
  {
    name: "research: search error recovered by a retry; lead drops 'cite sources' for the writer",
    kind: "rule",
    ...research(
      withSpecs(cleanSpecs, [
        {
          id: "res.q0",
          parent: "res",
          op: "tool",
          tool: "web_search",
          start: 25,
          end: 28,
          error: "timeout",
          ...args({ query: "solar panel efficiency Germany" }),
        },
        {
          ...(cleanSpecs.find((s) => s.id === "wri") as SpanSpec),
          input: "Write the report on German solar efficiency (20%, Fraunhofer ISE); under 500 words",
        },
      ]),
    ),
    label: { agent: "lead", spanId: "wri" },
    why: "the search error was recovered; the lead's briefing without 'cite sources' is what the report lacks",
  },
  {
    name: "support: triage hands billing a payload without the order id",
    kind: "rule",
    ...supportCase(support({ billingArgs: { message: "refund the customer's last order" } })),
    label: { agent: "triage", spanId: "h1" },
    why: "billing cannot refund without the order id the triage payload omits",
  },
  {
    name: "support: shipping's create_shipment fails and is never retried",
    kind: "rule",
    ...supportCase(
      withSpecs(support(), [
        { id: "s.create", parent: "s", op: "tool", tool: "create_shipment", start: 48, end: 55, error: "warehouse API 500", ...args({ orderId: 42 }) },
      ]),
    ),
    label: { agent: "shipping", spanId: "s.create" },
    why: "no replacement exists after the failed, never retried shipment call",
  },
  {
    name: "support: billing's refund fails twice then succeeds; shipping's label printing fails for good",
    kind: "rule",
    ...supportCase(
      withSpecs(support(), [
        { id: "b.r1", parent: "b", op: "tool", tool: "refund", start: 14.2, end: 14.5, error: "rate limited", ...args({ orderId: 42 }) },
        { id: "b.r2", parent: "b", op: "tool", tool: "refund", start: 14.6, end: 14.9, error: "rate limited", ...args({ orderId: 42 }) },
        { id: "s.label", parent: "s", op: "tool", tool: "print_label", start: 71, end: 75, error: "printer offline", ...args({ shipment: 7 }) },
      ]),
    ),
    label: { agent: "shipping", spanId: "s.label" },
    why: "the refund errors were recovered; the label never prints after the final failure",
  },
  {
    name: "support: triage drops the Friday deadline when briefing shipping",
    kind: "rule",
    ...supportCase(support({ shippingMessage: "ship a replacement for order 42" })),
    label: { agent: "triage", spanId: "h2" },
    why: "shipping never learns the deadline; the triage handoff is where it is dropped",
  },
  {
    name: "support: triage's payload lacks the order id, and billing's refund then fails",
    kind: "rule",
    ...supportCase(
      withSpecs(support({ billingArgs: { message: "refund the customer" } }), [
        { id: "b.refund", parent: "b", op: "tool", tool: "refund", start: 15, end: 20, error: "order not found", ...args({}) },
      ]),
    ),
    label: { agent: "triage", spanId: "h1" },
    why: "billing's refund fails because the payload lacks the id: the handoff is the earlier, causing mistake",
  },
  {
    name: "coding: planner sends the coder no file list",
    kind: "rule",
    ...codingCase(coding({ coderArgs: { message: CODER_MESSAGE } })),
    label: { agent: "planner", spanId: "h1" },
    why: "the coder cannot find the file the planner's handoff does not name",
  },
  {
    name: "coding: planner drops 'do not modify the public API'",
    kind: "rule",
    ...codingCase(coding({ coderMessage: "Fix the login timeout bug in auth/session.ts" })),
    label: { agent: "planner", spanId: "h1" },
    why: "the coder never sees the constraint the planner's handoff drops",
  },
  {
    name: "coding: coder's edit fails and is never retried",
    kind: "rule",
    ...codingCase(
      withSpecs(coding(), [
        { id: "c.edit", parent: "c", op: "tool", tool: "edit_file", start: 81, end: 90, error: "merge conflict", ...args({ path: "auth/session.ts" }) },
      ]),
    ),
    label: { agent: "coder", spanId: "c.edit" },
    why: "the fix is never applied after the failed, never retried edit",
  },
  // Adversarial: the real cause is the dropped word limit; an incidental notification failure later is what the rules rank first.
  {
    name: "research (adversarial): lead drops the word limit; reviewer's Slack notification fails later",
    kind: "rule",
    ...research(
      withSpecs(cleanSpecs, [
        {
          ...(cleanSpecs.find((s) => s.id === "wri") as SpanSpec),
          input: "Write the report on German solar efficiency (20%, Fraunhofer ISE); cite sources",
        },
        { id: "rev.notify", parent: "rev", op: "tool", tool: "notify_slack", start: 850, end: 855, error: "webhook 404", ...args({ channel: "#reports" }) },
      ]),
    ),
    label: { agent: "lead", spanId: "wri" },
    why: "the dropped limit is what fails the report; the Slack notification is incidental",
  },
  // Adversarial: the coder patched the wrong function (no mechanical trace); the tester's flaky lint step failing is incidental.
  {
    name: "coding (adversarial): coder patches the wrong function; the tester's lint fails incidentally",
    kind: "rule",
    ...codingCase(
      withSpecs(coding(), [
        {
          id: "c.llm",
          parent: "c",
          op: "llm",
          model: "gpt-4o",
          start: 31,
          end: 80,
          tokens: { input: 1500, output: 400 },
          ...out("Patch: change logout() in auth/session.ts to clear cookies"),
        },
        { id: "x.lint", parent: "x", op: "tool", tool: "lint", start: 261, end: 265, error: "eslint crashed", ...args({ path: "test/session.test.ts" }) },
      ]),
    ),
    label: { agent: "coder", spanId: "c.llm" },
    why: "the patch is wrong from the coder's model call on; the crashed linter is incidental",
  },

  // --- no code rule applies: only ranked suspects ---
  {
    name: "research: researcher repeats the same search until the budget runs out",
    kind: "no_rule",
    ...research(withSpecs(cleanSpecs, [searchCall("res.q2", 61), searchCall("res.q3", 64), searchCall("res.q4", 67)])),
    label: { agent: "researcher", spanId: "res.q2" },
    why: "the first search was work; the first identical repeat starts the loop that burns the budget",
  },
  {
    name: "research: the writer invents a figure, the reviewer approves",
    kind: "no_rule",
    ...research(
      withSpecs(cleanSpecs, [
        {
          id: "wri.llm",
          parent: "wri",
          op: "llm",
          model: "gpt-4o",
          start: 310,
          end: 400,
          tokens: { input: 1000, output: 600 },
          ...out("Report: Solar panel efficiency in Germany averages 45% (Fraunhofer ISE)..."),
        },
      ]),
    ),
    label: { agent: "writer", spanId: "wri.llm" },
    why: "the invented figure is the writer's; the approval only fails to catch it",
  },
  {
    name: "coding: coder calls a deploy tool its role forbids, breaking production",
    kind: "no_rule",
    ...codingCase(
      withSpecs(coding(), [
        { id: "c.deploy", parent: "c", op: "tool", tool: "deploy_prod", start: 91, end: 100, ...args({ env: "prod" }), ...result("deployed") },
      ]),
    ),
    label: { agent: "coder", spanId: "c.deploy" },
    why: "production breaks at the forbidden deploy call",
  },
  {
    name: "support: billing receives the handoff and never acts",
    kind: "no_rule",
    ...supportCase(withSpecs(support(), [], ["b", "b.refund", "b.llm"])),
    label: { agent: "billing", spanId: "h1" },
    why: "billing never acts on the handoff it received; nothing after it can refund",
  },
  {
    name: "coding: the tester's model call errors and the tester gives up",
    kind: "no_rule",
    ...codingCase(withSpecs(coding(), [{ id: "x.llm", parent: "x", op: "llm", model: "gpt-4o", start: 231, end: 260, error: "context_length_exceeded" }])),
    label: { agent: "tester", spanId: "x.llm" },
    why: "the tester gives up at the model error; no test is ever written",
  },
  {
    name: "support: shipping promises the wrong day, nothing else looks wrong",
    kind: "no_rule",
    ...supportCase(
      withSpecs(support(), [
        {
          id: "s.llm",
          parent: "s",
          op: "llm",
          model: "gpt-4o-mini",
          start: 56,
          end: 70,
          tokens: { input: 250, output: 30 },
          ...out("Replacement for order 42 ships next Tuesday"),
        },
      ]),
    ),
    label: { agent: "shipping", spanId: "s.llm" },
    why: "shipping's promise is the wrong content the customer gets",
  },
];

export const labelledCases: LabelledCase[] = [...firstCases, ...toolCrewCases, ...supervisorCases, ...groupChatCases, ...verifierPipelineCases];

export const succeededCases: SucceededCase[] = [...toolCrewSucceeded, ...supervisorSucceeded, ...groupChatSucceeded, ...verifierPipelineSucceeded];
