/**
 * A travel-booking run with two failures that leave no mechanical trace: the
 * orchestrator's handoff to the flight searcher drops "EU carriers only", and
 * the checker approves the non-EU flight without checking anything.
 */
import type { NormalizedSpan } from "@crux/core";
import { agentSpec, handoffSpec, llmSpec, orderedTrace, spanIdOf, toolSpec } from "@crux/core/testing";

export const GOAL = "Book a flight from Paris to Tokyo on 12 March for one adult, EU carriers only, under 900 EUR.";
export const HANDOFF_MESSAGE = "Find a flight from Paris to Tokyo on 12 March for one adult under 900 EUR.";
export const APPROVAL = "Looks good to me. Approved, go ahead and book it.";

export const ids = {
  root: spanIdOf(1),
  plan: spanIdOf(2),
  handoff: spanIdOf(3),
  searcher: spanIdOf(4),
  search: spanIdOf(5),
  pick: spanIdOf(6),
  checker: spanIdOf(7),
  approve: spanIdOf(8),
  book: spanIdOf(9),
};

export function travelTrace(): NormalizedSpan[] {
  return orderedTrace(
    agentSpec(ids.root, null, "orchestrator", { content: { input: GOAL, output: "Booked ANA NH216 on 12 March for 850 EUR." }, model: "gpt-4o" }),
    llmSpec(ids.plan, ids.root, 120, 30, {
      agentName: "orchestrator",
      model: "gpt-4o",
      content: { input: GOAL, output: "I will ask the flight searcher for options." },
    }),
    handoffSpec(ids.handoff, ids.root, {
      handoffFrom: "orchestrator",
      handoffTo: "flight_searcher",
      name: "transfer_to_flight_searcher",
      content: { handoffMessage: HANDOFF_MESSAGE },
    }),
    agentSpec(ids.searcher, ids.root, "flight_searcher", { content: { input: HANDOFF_MESSAGE } }),
    toolSpec(ids.search, ids.searcher, "search_flights", {
      agentName: "flight_searcher",
      content: { toolArgs: '{"from":"CDG","to":"HND","date":"2025-03-12"}', output: "ANA NH216 850 EUR; Air France AF274 880 EUR" },
    }),
    llmSpec(ids.pick, ids.searcher, 200, 40, { agentName: "flight_searcher", model: "gpt-4o", content: { output: "Cheapest option: ANA NH216 at 850 EUR." } }),
    agentSpec(ids.checker, ids.root, "checker"),
    llmSpec(ids.approve, ids.checker, 90, 15, {
      agentName: "checker",
      model: "gpt-4o-mini",
      content: { input: "Check: ANA NH216 at 850 EUR.", output: APPROVAL },
    }),
    toolSpec(ids.book, ids.root, "book_flight", { agentName: "orchestrator", content: { toolArgs: '{"flight":"NH216"}', output: "confirmation ZX81" } }),
  );
}
