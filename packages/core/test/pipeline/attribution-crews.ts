/**
 * The crews the labelled attribution cases are built from
 * (docs/attribution-accuracy.md): research (lead → researcher → writer →
 * reviewer, nested agents with tools), support (triage hands off to billing
 * and shipping), coding (planner → coder → tester, the tester verifies), and
 * helpers shared by the case files.
 */
import type { HandoffContract, AgentContract } from "../../src/mast/contracts.ts";
import type { SpanSpec } from "../trajectory/builder.ts";

/** The four system shapes the cases cover; accuracy is reported per shape. */
export type Shape = "tool_crew" | "supervisor_handoffs" | "group_chat" | "verifier_pipeline";

export interface LabelledCase {
  name: string;
  shape: Shape;
  /**
   * Only on the first 20 cases, written with the rules in mind: "rule" cases are meant to be caught by a code rule,
   * "no_rule" ones leave only weak evidence. The later cases were written from a story alone.
   */
  kind?: "rule" | "no_rule";
  specs: SpanSpec[];
  agentContracts: AgentContract[];
  handoffContracts: HandoffContract[];
  /** The decisive agent and span (Who&When: the first step after which the failure was inevitable). */
  label: { agent: string; spanId: string };
  /** One line: why this agent and this span, from the story. */
  why: string;
}

/** A run that succeeded: it must get no attribution at all. */
export interface SucceededCase {
  name: string;
  shape: Shape;
  specs: SpanSpec[];
  agentContracts: AgentContract[];
  handoffContracts: HandoffContract[];
}

export const args = (v: unknown) => ({ args: JSON.stringify(v) });
/** A transfer tool's arguments and the handoff message the normalizer reads from them (their `message` field). */
const handoffArgs = (v: { message?: string; [field: string]: unknown }) => ({ ...args(v), handoffMessage: v.message ?? JSON.stringify(v) });
export const result = (text: string) => ({ output: text });
export const out = (text: string) => ({ output: text });

// Research crew: lead → researcher → writer → reviewer (packages/core/test/trajectory/fixtures.ts).
const researchContracts: HandoffContract[] = [{ from: "lead", to: "writer", requiredConstraints: ["under 500 words", "cite sources"] }];
const researchRoles: AgentContract[] = [{ agent: "reviewer", role: "review", isVerifier: true, forbiddenTools: ["write_file"] }];

// Support crew: triage hands to billing, then to shipping.
const SUPPORT_ASK = "Customer asks: refund order 42 and ship a replacement by Friday";
export function support(
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
export const CODER_MESSAGE = "Fix the login timeout bug in auth/session.ts; do not modify the public API";
const TESTER_MESSAGE = "Add a regression test for the login timeout fix; do not modify the public API";
export function coding(over: { coderArgs?: { message?: string; [field: string]: unknown }; coderMessage?: string } = {}): SpanSpec[] {
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

export const research = (specs: SpanSpec[]) => ({
  shape: "tool_crew" as const,
  specs,
  agentContracts: researchRoles,
  handoffContracts: researchContracts,
});
export const supportCase = (specs: SpanSpec[]) => ({
  shape: "supervisor_handoffs" as const,
  specs,
  agentContracts: [] as AgentContract[],
  handoffContracts: supportContracts,
});
export const codingCase = (specs: SpanSpec[]) => ({
  shape: "verifier_pipeline" as const,
  specs,
  agentContracts: codingRoles,
  handoffContracts: codingContracts,
});
export const searchCall = (id: string, start: number): SpanSpec => ({
  id,
  parent: "res",
  op: "tool",
  tool: "web_search",
  start,
  end: start + 3,
  ...args({ query: "solar panel efficiency Germany" }),
  ...result("Fraunhofer ISE: average module efficiency 20%"),
});

// Travel crew: a concierge with two nested agents that each search and book with tools.
const TRAVEL_GOAL = "Book a flight Paris to Rome on May 3 and a hotel near Termini for May 3-5; total under 800 EUR";
export function travel(): SpanSpec[] {
  return [
    { id: "con", op: "agent", agent: "concierge", start: 0, end: 1000, input: TRAVEL_GOAL },
    {
      id: "con.plan",
      parent: "con",
      op: "llm",
      model: "gpt-4o",
      start: 1,
      end: 10,
      tokens: { input: 300, output: 80 },
      ...out("Plan: flights books Paris to Rome on May 3, hotels books near Termini May 3-5, budget 800 EUR"),
    },
    { id: "fl", parent: "con", op: "agent", agent: "flights", start: 20, end: 300, input: "Book a flight Paris to Rome on May 3; keep it under 300 EUR" },
    {
      id: "fl.search",
      parent: "fl",
      op: "tool",
      tool: "search_flights",
      start: 21,
      end: 60,
      ...args({ from: "PAR", to: "ROM", date: "2026-05-03" }),
      ...result("AF1404 May 3 189 EUR; AZ317 May 3 214 EUR"),
    },
    {
      id: "fl.llm",
      parent: "fl",
      op: "llm",
      model: "gpt-4o-mini",
      start: 61,
      end: 90,
      tokens: { input: 400, output: 40 },
      ...out("AF1404 on May 3 at 189 EUR is the cheapest"),
    },
    {
      id: "fl.book",
      parent: "fl",
      op: "tool",
      tool: "book_flight",
      start: 91,
      end: 120,
      ...args({ flight: "AF1404", date: "2026-05-03" }),
      ...result("booked AF1404 May 3, ref QX7"),
    },
    {
      id: "ho",
      parent: "con",
      op: "agent",
      agent: "hotels",
      start: 320,
      end: 700,
      input: "Book a hotel near Termini in Rome for May 3-5; keep it under 500 EUR",
    },
    {
      id: "ho.search",
      parent: "ho",
      op: "tool",
      tool: "search_hotels",
      start: 321,
      end: 380,
      ...args({ near: "Roma Termini", checkIn: "2026-05-03", checkOut: "2026-05-05" }),
      ...result("Hotel Luce 2 nights 260 EUR; Hotel Roma 2 nights 410 EUR"),
    },
    {
      id: "ho.llm",
      parent: "ho",
      op: "llm",
      model: "gpt-4o-mini",
      start: 381,
      end: 420,
      tokens: { input: 500, output: 40 },
      ...out("Hotel Luce near Termini, 2 nights for 260 EUR"),
    },
    {
      id: "ho.book",
      parent: "ho",
      op: "tool",
      tool: "book_hotel",
      start: 421,
      end: 460,
      ...args({ hotel: "Hotel Luce", checkIn: "2026-05-03", checkOut: "2026-05-05" }),
      ...result("booked Hotel Luce May 3-5, ref HL22"),
    },
    {
      id: "con.final",
      parent: "con",
      op: "llm",
      model: "gpt-4o",
      start: 900,
      end: 990,
      tokens: { input: 600, output: 80 },
      ...out("Booked AF1404 on May 3 (189 EUR) and Hotel Luce May 3-5 (260 EUR): 449 EUR in total"),
    },
  ];
}
export const travelCase = (specs: SpanSpec[]) => ({
  shape: "tool_crew" as const,
  specs,
  agentContracts: [] as AgentContract[],
  handoffContracts: [] as HandoffContract[],
});
