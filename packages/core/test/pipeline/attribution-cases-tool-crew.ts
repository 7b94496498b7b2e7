/**
 * Labelled failed traces, shape "tool_crew": agents that work through tools
 * (the research crew and a travel crew). Each label was decided from the
 * story before the scorer ran; `why` gives the reason in one line.
 */
import { cleanSpecs, withSpecs } from "../trajectory/fixtures.ts";
import type { SpanSpec } from "../trajectory/builder.ts";
import { args, out, research, result, travel, travelCase, type LabelledCase, type SucceededCase } from "./attribution-crews.ts";

const base = (id: string): SpanSpec => cleanSpecs.find((s) => s.id === id) as SpanSpec;
const travelBase = (id: string): SpanSpec => travel().find((s) => s.id === id) as SpanSpec;

export const toolCrewCases: LabelledCase[] = [
  {
    name: "research: researcher searches Spain instead of Germany; everything after builds on it",
    ...research(
      withSpecs(cleanSpecs, [
        { ...base("res.q"), ...args({ query: "solar panel efficiency Spain" }), ...result("IDAE: Spanish modules average 17% efficiency") },
        { ...base("res.llm"), ...out("Spanish solar panels average 17% efficiency according to IDAE") },
        { ...base("wri.llm"), ...out("Report: Solar panel efficiency averages 17% (IDAE)...") },
      ]),
    ),
    label: { agent: "researcher", spanId: "res.q" },
    why: "the wrong query is the first wrong step; the summary, report and approval only carry it forward",
  },
  {
    name: "research: researcher misreads 20% as 30%; the writer and reviewer carry it",
    ...research(
      withSpecs(cleanSpecs, [
        { ...base("res.llm"), ...out("German solar panels average 30% efficiency according to Fraunhofer ISE") },
        { ...base("wri.llm"), ...out("Report: Solar panel efficiency in Germany averages 30% (Fraunhofer ISE)...") },
      ]),
    ),
    label: { agent: "researcher", spanId: "res.llm" },
    why: "the tool returned 20%; the researcher's summary is where the wrong figure enters",
  },
  {
    name: "research: writer ignores the 500-word limit it was given",
    ...research(
      withSpecs(cleanSpecs, [{ ...base("wri.llm"), ...out("Report (1,400 words): Solar panel efficiency in Germany averages 20% (Fraunhofer ISE)...") }]),
    ),
    label: { agent: "writer", spanId: "wri.llm" },
    why: "the lead passed the limit; the writer's draft is where it is broken",
  },
  {
    name: "research: writer's first save fails and a retry succeeds; the draft has no sources",
    ...research(
      withSpecs(cleanSpecs, [
        { ...base("wri.llm"), ...out("Report: Solar panel efficiency in Germany averages about 20%...") },
        { id: "wri.save0", parent: "wri", op: "tool", tool: "write_file", start: 405, end: 408, error: "EACCES", ...args({ path: "report.md" }) },
      ]),
    ),
    label: { agent: "writer", spanId: "wri.llm" },
    why: "the save error was recovered; the missing citation in the draft is what fails the task",
  },
  {
    name: "research: a page fetch times out (search covers it); the lead's final summary states 25%",
    ...research(
      withSpecs(cleanSpecs, [
        { id: "res.fetch", parent: "res", op: "tool", tool: "fetch_page", start: 62, end: 66, error: "timeout", ...args({ url: "https://ise.fraunhofer.de" }) },
        { ...base("final"), ...out("Final report delivered: German solar panels average 25% efficiency") },
      ]),
    ),
    label: { agent: "lead", spanId: "final" },
    why: "the research and report are right; the lead's last message misstates the figure the user sees",
  },
  {
    name: "research: writer saves the same file again and again until the budget runs out",
    ...research(
      withSpecs(cleanSpecs, [
        { id: "wri.save2", parent: "wri", op: "tool", tool: "write_file", start: 425, end: 430, ...args({ path: "report.md" }), ...result("ok") },
        { id: "wri.save3", parent: "wri", op: "tool", tool: "write_file", start: 435, end: 440, ...args({ path: "report.md" }), ...result("ok") },
        { id: "wri.save4", parent: "wri", op: "tool", tool: "write_file", start: 445, end: 450, ...args({ path: "report.md" }), ...result("ok") },
      ]),
    ),
    label: { agent: "writer", spanId: "wri.save2" },
    why: "the first redundant save starts the loop that burns the budget",
  },
  {
    name: "research: researcher researches wind turbines (off goal)",
    ...research(
      withSpecs(cleanSpecs, [
        { ...base("res.q"), ...args({ query: "wind turbine capacity factor offshore" }), ...result("Offshore wind capacity factor is around 40%") },
        { ...base("res.llm"), ...out("Offshore wind turbines reach a 40% capacity factor") },
      ]),
    ),
    label: { agent: "researcher", spanId: "res.q" },
    why: "the researcher's first action leaves the goal; nothing on solar is ever found",
  },
  {
    name: "research: writer invents a citation, the reviewer approves it",
    ...research(withSpecs(cleanSpecs, [{ ...base("wri.llm"), ...out("Report: Solar panel efficiency in Germany averages 20% (IEA Solar Outlook 2031)...") }])),
    label: { agent: "writer", spanId: "wri.llm" },
    why: "the invented source is the writer's; the approval only fails to catch it",
  },
  {
    name: "research: reviewer overwrites the report with its notes using a tool it must not use",
    ...research(
      withSpecs(cleanSpecs, [
        { id: "rev.write", parent: "rev", op: "tool", tool: "write_file", start: 805, end: 810, ...args({ path: "report.md" }), ...result("ok") },
      ]),
    ),
    label: { agent: "reviewer", spanId: "rev.write" },
    why: "the report was right until the reviewer's forbidden write replaced it",
  },
  {
    name: "research: the lead's plan scopes the task to Spain; the crew follows the plan",
    ...research(
      withSpecs(cleanSpecs, [
        { ...base("plan"), ...out("Plan: research solar efficiency data for Spain, then write, then review") },
        { ...base("res"), input: "Research solar panel efficiency in Spain; under 500 words; cite sources" },
        { ...base("res.q"), ...args({ query: "solar panel efficiency Spain" }), ...result("IDAE: Spanish modules average 17% efficiency") },
        { ...base("res.llm"), ...out("Spanish solar panels average 17% efficiency according to IDAE") },
      ]),
    ),
    label: { agent: "lead", spanId: "plan" },
    why: "the plan is the earliest wrong step; the researcher did what it was asked",
  },
  {
    name: "travel: flights books May 4 instead of May 3",
    ...travelCase(
      withSpecs(travel(), [{ ...travelBase("fl.book"), ...args({ flight: "AF1404", date: "2026-05-04" }), ...result("booked AF1404 May 4, ref QX7") }]),
    ),
    label: { agent: "flights", spanId: "fl.book" },
    why: "search and choice were right; the booking call carries the wrong date",
  },
  {
    name: "travel: hotel booking fails with no retry; the concierge reports success",
    ...travelCase(
      withSpecs(travel(), [
        {
          id: "ho.book",
          parent: "ho",
          op: "tool",
          tool: "book_hotel",
          start: 421,
          end: 460,
          error: "payment declined",
          ...args({ hotel: "Hotel Luce", checkIn: "2026-05-03", checkOut: "2026-05-05" }),
        },
      ]),
    ),
    label: { agent: "hotels", spanId: "ho.book" },
    why: "the failed booking is never retried; no hotel exists after it",
  },
  {
    name: "travel: flights' search errors twice, then works; hotels picks a hotel far from Termini",
    ...travelCase(
      withSpecs(travel(), [
        {
          id: "fl.s0",
          parent: "fl",
          op: "tool",
          tool: "search_flights",
          start: 20.2,
          end: 20.5,
          error: "rate limited",
          ...args({ from: "PAR", to: "ROM", date: "2026-05-03" }),
        },
        {
          id: "fl.s1",
          parent: "fl",
          op: "tool",
          tool: "search_flights",
          start: 20.6,
          end: 20.9,
          error: "rate limited",
          ...args({ from: "PAR", to: "ROM", date: "2026-05-03" }),
        },
        { ...travelBase("ho.llm"), ...out("Hotel Vista near the airport, 2 nights for 190 EUR") },
        {
          ...travelBase("ho.book"),
          ...args({ hotel: "Hotel Vista", checkIn: "2026-05-03", checkOut: "2026-05-05" }),
          ...result("booked Hotel Vista May 3-5, ref HV9"),
        },
      ]),
    ),
    label: { agent: "hotels", spanId: "ho.llm" },
    why: "the search errors were recovered; the hotels agent chose a hotel that breaks the location requirement",
  },
  {
    name: "travel: the concierge's plan sets a 1,200 EUR budget; both agents overspend",
    ...travelCase(
      withSpecs(travel(), [
        { ...travelBase("con.plan"), ...out("Plan: flights books Paris to Rome on May 3, hotels books near Termini May 3-5, budget 1200 EUR") },
        { ...travelBase("fl"), input: "Book a flight Paris to Rome on May 3; keep it under 500 EUR" },
        { ...travelBase("fl.llm"), ...out("AZ317 business on May 3 at 480 EUR") },
        { ...travelBase("fl.book"), ...args({ flight: "AZ317", date: "2026-05-03" }), ...result("booked AZ317 May 3, ref AZ1") },
        { ...travelBase("ho"), input: "Book a hotel near Termini in Rome for May 3-5; keep it under 700 EUR" },
        { ...travelBase("ho.llm"), ...out("Hotel Roma near Termini, 2 nights for 410 EUR") },
        {
          ...travelBase("ho.book"),
          ...args({ hotel: "Hotel Roma", checkIn: "2026-05-03", checkOut: "2026-05-05" }),
          ...result("booked Hotel Roma May 3-5, ref HR1"),
        },
        { ...travelBase("con.final"), ...out("Booked AZ317 on May 3 (480 EUR) and Hotel Roma May 3-5 (410 EUR): 890 EUR in total") },
      ]),
    ),
    label: { agent: "concierge", spanId: "con.plan" },
    why: "the plan's wrong budget is the early assumption every later booking follows",
  },
];

export const toolCrewSucceeded: SucceededCase[] = [
  { name: "research: the clean run", ...research(cleanSpecs) },
  { name: "travel: the clean run", ...travelCase(travel()) },
];
