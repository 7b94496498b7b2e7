/** Test-only builders, exported as "@crux/core/testing" and never from the main "@crux/core" entry. */
export {
  decodedSpan,
  exceptionEvent,
  normalizedSpan,
  nsAt,
  NS_PER_MS,
  spanIdOf,
  TEST_BASE_NS,
  TEST_SPAN_ID,
  TEST_TRACE_ID,
  traceIdOf,
  type NormalizedSpanOverrides,
} from "./builders.ts";
export { agentSpec, handoffSpec, llmSpec, orderedTrace, toolSpec, type OrderedSpanSpec } from "./ordered-trace.ts";
