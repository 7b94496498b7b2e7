export { scoreTrace, scorePreparedTrace, prepareTrace, runTagsOf, UNKNOWN_MODEL } from "./score-trace.ts";
export { attributionRows } from "./attribution-rows.ts";
export { buildTraceView, checkResultOf, expressionsOf, type TraceView, type TraceViewSpan } from "./trace-view.ts";
