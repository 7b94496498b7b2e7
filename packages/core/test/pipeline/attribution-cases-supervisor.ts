/**
 * Labelled failed traces, shape "supervisor_handoffs": a triage supervisor
 * hands work to billing and shipping through handoff spans and answers the
 * customer. Each label was decided from the story before the scorer ran;
 * `why` gives the reason in one line.
 */
import { withSpecs } from "../trajectory/fixtures.ts";
import type { SpanSpec } from "../trajectory/builder.ts";
import { args, out, result, support, supportCase, type LabelledCase, type SucceededCase } from "./attribution-crews.ts";

const at = (id: string, specs: SpanSpec[] = support()): SpanSpec => specs.find((s) => s.id === id) as SpanSpec;
const checkStatus = (id: string, start: number): SpanSpec => ({
  id,
  parent: "b",
  op: "tool",
  tool: "check_refund_status",
  start,
  end: start + 1,
  ...args({ orderId: 42 }),
  ...result("refund of order 42: pending"),
});

export const supervisorCases: LabelledCase[] = [
  {
    name: "support: billing refunds order 24 instead of 42",
    ...supportCase(withSpecs(support(), [{ ...at("b.refund"), ...args({ orderId: 24 }), ...result("refund of order 24 issued") }])),
    label: { agent: "billing", spanId: "b.refund" },
    why: "triage passed 42; billing's refund call is where the wrong order is refunded",
  },
  {
    name: "support: triage misreads the order as 24 at the start; both specialists act on 24",
    ...supportCase(
      withSpecs(
        support({
          billingArgs: { orderId: 24, message: "refund order 24" },
          shippingArgs: { orderId: 24, message: "ship a replacement for order 24 by Friday" },
          shippingMessage: "ship a replacement for order 24 by Friday",
        }),
        [
          { ...at("t.llm"), ...out("Order 24: route the refund to billing and the replacement to shipping") },
          { ...at("b"), input: "refund order 24" },
          { ...at("b.refund"), ...args({ orderId: 24 }), ...result("refund of order 24 issued") },
          { ...at("s.create"), ...args({ orderId: 24 }), ...result("replacement shipment 8 for order 24 created") },
        ],
      ),
    ),
    label: { agent: "triage", spanId: "t.llm" },
    why: "the early misreading is the first wrong step; every later action follows it faithfully",
  },
  {
    name: "support: shipping's first create_shipment fails and a retry works; triage tells the customer the refund is pending",
    ...supportCase(
      withSpecs(support(), [
        { id: "s.c0", parent: "s", op: "tool", tool: "create_shipment", start: 47.5, end: 47.9, error: "warehouse API 503", ...args({ orderId: 42 }) },
        { ...at("t.final"), ...out("Your refund is still pending and the replacement for order 42 ships Friday") },
      ]),
    ),
    label: { agent: "triage", spanId: "t.final" },
    why: "the shipment error was recovered; the refund was issued, so the customer-facing answer is the mistake",
  },
  {
    name: "support: billing polls the refund status over and over and never reports back",
    ...supportCase(withSpecs(support(), [checkStatus("b.st1", 21), checkStatus("b.st2", 23), checkStatus("b.st3", 25), checkStatus("b.st4", 27)], ["b.llm"])),
    label: { agent: "billing", spanId: "b.st2" },
    why: "the first status check is reasonable; the second identical one starts a loop that never ends",
  },
  {
    name: "support: triage asks for a refund to the original card; billing issues store credit",
    ...supportCase(
      withSpecs(support({ billingArgs: { orderId: 42, message: "refund order 42 to the original card" } }), [
        { ...at("b"), input: "refund order 42 to the original card" },
        { ...at("b.refund"), ...args({ orderId: 42, method: "store_credit" }), ...result("store credit for order 42 issued") },
      ]),
    ),
    label: { agent: "billing", spanId: "b.refund" },
    why: "the directive reached billing intact; billing's refund call ignores it",
  },
  {
    name: "support: triage never hands off to shipping but tells the customer the replacement ships",
    ...supportCase(withSpecs(support(), [], ["h2", "s", "s.create", "s.llm"])),
    label: { agent: "triage", spanId: "t.final" },
    why: "triage closes the case without the shipping handoff; its final answer is where the request is dropped",
  },
  {
    name: "support: shipping schedules the replacement for Monday while promising Friday",
    ...supportCase(
      withSpecs(support(), [
        { ...at("s.create"), ...args({ orderId: 42, deliverBy: "Monday" }), ...result("replacement shipment 7 for order 42 scheduled for Monday") },
      ]),
    ),
    label: { agent: "shipping", spanId: "s.create" },
    why: "the Friday deadline arrived; the shipment call sets the wrong day",
  },
  {
    name: "support: billing's refund is declined and billing reports it issued",
    ...supportCase(
      withSpecs(support(), [{ id: "b.refund", parent: "b", op: "tool", tool: "refund", start: 15, end: 20, error: "card expired", ...args({ orderId: 42 }) }]),
    ),
    label: { agent: "billing", spanId: "b.refund" },
    why: "the declined refund is never retried or escalated; no refund exists after it",
  },
  {
    name: "support: shipping pitches a promotion instead of creating the shipment",
    ...supportCase(withSpecs(support(), [{ ...at("s.llm"), ...out("Good news: our spring sale gives 20% off all accessories this week!") }], ["s.create"])),
    label: { agent: "shipping", spanId: "s.llm" },
    why: "shipping's only turn is off the task; no shipment is ever made",
  },
  {
    name: "support: the billing handoff fails once and is retried; shipping promises Tuesday",
    ...supportCase(
      withSpecs(support(), [
        {
          id: "h0",
          parent: "t",
          op: "handoff",
          tool: "transfer_to_billing",
          handoffTo: "billing",
          start: 11,
          end: 11.5,
          error: "agent busy",
          ...args({ orderId: 42, message: "refund order 42" }),
        },
        { ...at("s.llm"), ...out("Replacement for order 42 ships next Tuesday") },
        { ...at("t.final"), ...out("Refund issued and the replacement for order 42 ships next Tuesday") },
      ]),
    ),
    label: { agent: "shipping", spanId: "s.llm" },
    why: "the handoff error was recovered by the retry; shipping's wrong promise is what the customer gets",
  },
];

export const supervisorSucceeded: SucceededCase[] = [{ name: "support: the clean run", ...supportCase(support()) }];
