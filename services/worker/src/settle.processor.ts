/**
 * trace.settle: a trace has been quiet for the settle delay. Rebuild its span
 * tree, attribute every span to its agent, store the trace's agent list and
 * clear the dirty flag — unless spans arrived meanwhile, in which case their
 * own settle job (debounced by trace id) runs after this one.
 */
import { attributeAgents } from "@crux/core";
import { getTrace, markTraceSettled, updateTraceAgents, type Database } from "@crux/db";
import type { Payload } from "@crux/queue";
import type { Logger } from "@crux/runtime";

export function createSettleProcessor(deps: { database: Database; log: Logger }) {
  return async function settle(payload: Payload<"trace.settle">): Promise<void> {
    const found = await getTrace(deps.database, payload.projectId, payload.traceId);
    if (!found) {
      deps.log.warn(payload, "settle: trace not found, nothing to do");
      return;
    }
    const attribution = attributeAgents(found.spans);
    const agents = attribution.agents.map((a) => a.name).sort();
    await updateTraceAgents(deps.database, payload.projectId, payload.traceId, agents);
    const cleared = await markTraceSettled(deps.database, payload.projectId, payload.traceId, found.trace.lastReceivedAt);
    deps.log.info({ ...payload, spans: found.spans.length, agents: agents.length, cleared }, "trace settled");
  };
}
