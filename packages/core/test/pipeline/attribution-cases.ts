/**
 * Hand-labelled failed traces for measuring decisive-error attribution
 * (docs/attribution-accuracy.md). Three crews (research, support, coding);
 * each case injects one failure and records, decided before looking at the
 * scorer's output, which agent made the decisive mistake and at which span
 * (the first step after which the failure was inevitable, as in Who&When).
 * Some cases are adversarial on purpose: an incidental error that the rules
 * rank first, or a mistake that leaves no mechanical trace.
 */
import type { HandoffContract, AgentContract } from "../../src/scorers/contracts.ts";
import { cleanSpecs, withSpecs } from "../scorers/fixtures.ts";
import type { SpanSpec } from "../trajectory/builder.ts";

export interface LabelledCase {
  name: string;
  /** What the case injects; "rule" cases are meant to be caught by a code rule, "no_rule" ones leave only weak evidence. */
  kind: "rule" | "no_rule";
  specs: SpanSpec[];
  agentContracts: AgentContract[];
  handoffContracts: HandoffContract[];
  label: { agent: string; spanId: string };
}

const args = (v: unknown) => ({ args: JSON.stringify(v) });
/** A transfer tool's arguments and the handoff message the normalizer reads from them (their `message` field). */
const handoffArgs = (v: { message?: string; [field: string]: unknown }) => ({ ...args(v), handoffMessage: v.message ?? JSON.stringify(v) });
const result = (text: string) => ({ output: text });
const out = (text: string) => ({ output: text });

// Research crew: lead → researcher → writer → reviewer (packages/core/test/scorers/fixtures.ts).
const researchContracts: HandoffContract[] = [{ from: "lead", to: "writer", requiredConstraints: ["under 500 words", "cite sources"] }];
const researchRoles: AgentContract[] = [{ agent: "reviewer", role: "review", isVerifier: true, forbiddenTools: ["write_file"] }];

// Support crew: triage hands to billing, then to shipping.
const SUPPORT_ASK = "Customer asks: refund order 42 and ship a replacement by Friday";
function support(
  over: {
    billingArgs?: { message?: string; [field: string]: unknown };
    shippingArgs?: { message?: string; [field: string]: unknown };
    shippingMessage?: string;
  } = {},
): SpanSpec[] {
  const shippingMessage = over.shippingMessage ?? "ship a replacement for order 42 by Friday";
  return [
    { id: "t", op: "agent", agent: "triage", start: 0, end: 100, input: SUPPORT_ASK },
    {
      id: "t.llm",
      parent: "t",
      op: "llm",
      model: "gpt-4o-mini",
      start: 1,
      end: 10,
      tokens: { input: 200, output: 40 },
      ...out("Route the refund to billing and the replacement to shipping"),
    },
    {
      id: "h1",
      parent: "t",
      op: "handoff",
      tool: "transfer_to_billing",
      handoffTo: "billing",
      start: 12,
      end: 41,
      ...handoffArgs(over.billingArgs ?? { orderId: 42, message: "refund order 42" }),
    },
    { id: "b", parent: "h1", op: "agent", agent: "billing", start: 14, end: 40, input: "refund order 42" },
    {
      id: "b.refund",
      parent: "b",
      op: "tool",
      tool: "refund",
      start: 15,
      end: 20,
      ...args({ orderId: 42 }),
      ...result("refund of order 42 issued"),
    },
    {
      id: "b.llm",
      parent: "b",
      op: "llm",
      model: "gpt-4o-mini",
      start: 21,
      end: 30,
      tokens: { input: 300, output: 30 },
      ...out("Refund of order 42 issued"),
    },
    {
      id: "h2",
      parent: "t",
      op: "handoff",
      tool: "transfer_to_shipping",
      handoffTo: "shipping",
      start: 45,
      end: 91,
      ...handoffArgs(over.shippingArgs ?? { orderId: 42, message: shippingMessage }),
    },
    { id: "s", parent: "h2", op: "agent", agent: "shipping", start: 47, end: 90, input: shippingMessage },
    {
      id: "s.create",
      parent: "s",
      op: "tool",
      tool: "create_shipment",
      start: 48,
      end: 55,
      ...args({ orderId: 42 }),
      ...result("replacement shipment 7 for order 42 created"),
    },
    {
      id: "s.llm",
      parent: "s",
      op: "llm",
      model: "gpt-4o-mini",
      start: 56,
      end: 70,
      tokens: { input: 250, output: 30 },
      ...out("Replacement for order 42 ships Friday"),
    },
    {
      id: "t.final",
      parent: "t",
      op: "llm",
      model: "gpt-4o-mini",
      start: 92,
      end: 99,
      tokens: { input: 400, output: 30 },
      ...out("Refund issued and the replacement for order 42 ships Friday"),
    },
  ];
}
const supportContracts: HandoffContract[] = [
  { from: "triage", to: "*", jsonSchema: { type: "object", required: ["orderId", "message"] } },
  { from: "triage", to: "shipping", requiredConstraints: ["by Friday"] },
];

// Coding crew: planner → coder → tester (the tester verifies).
const CODING_TASK = "Fix the login timeout bug; do not modify the public API; add a regression test";
const CODER_MESSAGE = "Fix the login timeout bug in auth/session.ts; do not modify the public API";
const TESTER_MESSAGE = "Add a regression test for the login timeout fix; do not modify the public API";
function coding(over: { coderArgs?: { message?: string; [field: string]: unknown }; coderMessage?: string } = {}): SpanSpec[] {
  const coderMessage = over.coderMessage ?? CODER_MESSAGE;
  return [
    { id: "p", op: "agent", agent: "planner", start: 0, end: 300, input: CODING_TASK },
    {
      id: "p.llm",
      parent: "p",
      op: "llm",
      model: "gpt-4o",
      start: 1,
      end: 20,
      tokens: { input: 500, output: 120 },
      ...out("Plan: the coder fixes the session timeout, the tester adds a regression test"),
    },
    {
      id: "h1",
      parent: "p",
      op: "handoff",
      tool: "transfer_to_coder",
      handoffTo: "coder",
      start: 22,
      end: 151,
      ...handoffArgs(over.coderArgs ?? { files: ["auth/session.ts"], message: coderMessage }),
    },
    { id: "c", parent: "h1", op: "agent", agent: "coder", start: 24, end: 150, input: coderMessage },
    {
      id: "c.read",
      parent: "c",
      op: "tool",
      tool: "read_file",
      start: 25,
      end: 30,
      ...args({ path: "auth/session.ts" }),
      ...result("export function login(user, ttl) { ... }"),
    },
    {
      id: "c.llm",
      parent: "c",
      op: "llm",
      model: "gpt-4o",
      start: 31,
      end: 80,
      tokens: { input: 1500, output: 400 },
      ...out("Patch: extend the session timeout in auth/session.ts to 30 minutes"),
    },
    { id: "c.edit", parent: "c", op: "tool", tool: "edit_file", start: 81, end: 90, ...args({ path: "auth/session.ts" }), ...result("ok") },
    {
      id: "h2",
      parent: "p",
      op: "handoff",
      tool: "transfer_to_tester",
      handoffTo: "tester",
      start: 152,
      end: 281,
      ...handoffArgs({ files: ["auth/session.ts"], message: TESTER_MESSAGE }),
    },
    { id: "x", parent: "h2", op: "agent", agent: "tester", start: 154, end: 280, input: TESTER_MESSAGE },
    { id: "x.write", parent: "x", op: "tool", tool: "write_test", start: 155, end: 170, ...args({ path: "test/session.test.ts" }), ...result("ok") },
    { id: "x.run", parent: "x", op: "tool", tool: "run_tests", start: 171, end: 230, ...args({ suite: "auth" }), ...result("12 passed") },
    {
      id: "x.llm",
      parent: "x",
      op: "llm",
      model: "gpt-4o",
      start: 231,
      end: 260,
      tokens: { input: 900, output: 60 },
      ...out("Regression test added for the session timeout"),
    },
    {
      id: "p.final",
      parent: "p",
      op: "llm",
      model: "gpt-4o",
      start: 282,
      end: 299,
      tokens: { input: 700, output: 80 },
      ...out("Login timeout fixed with a regression test"),
    },
  ];
}
const codingContracts: HandoffContract[] = [
  { from: "planner", to: "*", jsonSchema: { type: "object", required: ["files", "message"] }, requiredConstraints: ["do not modify the public API"] },
];
const codingRoles: AgentContract[] = [
  { agent: "tester", role: "test", isVerifier: true },
  { agent: "coder", role: "code", forbiddenTools: ["deploy*"] },
];

const research = (specs: SpanSpec[]) => ({ specs, agentContracts: researchRoles, handoffContracts: researchContracts });
const supportCase = (specs: SpanSpec[]) => ({ specs, agentContracts: [] as AgentContract[], handoffContracts: supportContracts });
const codingCase = (specs: SpanSpec[]) => ({ specs, agentContracts: codingRoles, handoffContracts: codingContracts });
const searchCall = (id: string, start: number): SpanSpec => ({
  id,
  parent: "res",
  op: "tool",
  tool: "web_search",
  start,
  end: start + 3,
  ...args({ query: "solar panel efficiency Germany" }),
  ...result("Fraunhofer ISE: average module efficiency 20%"),
});

export const labelledCases: LabelledCase[] = [
  // --- a code rule is meant to catch these ---
  {
    name: "research: researcher's page fetch fails and is never retried",
    kind: "rule",
    ...research(withSpecs(cleanSpecs, [{ id: "res.fetch", parent: "res", op: "tool", tool: "fetch_page", start: 62, end: 66, error: "HTTP 503" }])),
    label: { agent: "researcher", spanId: "res.fetch" },
  },
  {
    name: "research: writer's save fails, the report is never written",
    kind: "rule",
    ...research(withSpecs(cleanSpecs, [{ id: "wri.save", parent: "wri", op: "tool", tool: "write_file", start: 410, end: 420, error: "EACCES" }])),
    label: { agent: "writer", spanId: "wri.save" },
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
  },
  {
    name: "support: triage hands billing a payload without the order id",
    kind: "rule",
    ...supportCase(support({ billingArgs: { message: "refund the customer's last order" } })),
    label: { agent: "triage", spanId: "h1" },
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
  },
  {
    name: "support: triage drops the Friday deadline when briefing shipping",
    kind: "rule",
    ...supportCase(support({ shippingMessage: "ship a replacement for order 42" })),
    label: { agent: "triage", spanId: "h2" },
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
  },
  {
    name: "coding: planner sends the coder no file list",
    kind: "rule",
    ...codingCase(coding({ coderArgs: { message: CODER_MESSAGE } })),
    label: { agent: "planner", spanId: "h1" },
  },
  {
    name: "coding: planner drops 'do not modify the public API'",
    kind: "rule",
    ...codingCase(coding({ coderMessage: "Fix the login timeout bug in auth/session.ts" })),
    label: { agent: "planner", spanId: "h1" },
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
  },

  // --- no code rule applies: only ranked suspects ---
  {
    name: "research: researcher repeats the same search until the budget runs out",
    kind: "no_rule",
    ...research(withSpecs(cleanSpecs, [searchCall("res.q2", 61), searchCall("res.q3", 64), searchCall("res.q4", 67)])),
    label: { agent: "researcher", spanId: "res.q2" },
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
  },
  {
    name: "support: billing receives the handoff and never acts",
    kind: "no_rule",
    ...supportCase(withSpecs(support(), [], ["b", "b.refund", "b.llm"])),
    label: { agent: "billing", spanId: "h1" },
  },
  {
    name: "coding: the tester's model call errors and the tester gives up",
    kind: "no_rule",
    ...codingCase(withSpecs(coding(), [{ id: "x.llm", parent: "x", op: "llm", model: "gpt-4o", start: 231, end: 260, error: "context_length_exceeded" }])),
    label: { agent: "tester", spanId: "x.llm" },
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
  },
];
