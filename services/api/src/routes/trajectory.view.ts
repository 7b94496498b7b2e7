/**
 * GET /traces/:traceId/trajectories: the stored steps with the text of each step's span (input,
 * tool arguments, output, exception message), read from the stored spans as the API's span tree
 * reads them. Pure.
 */
import type { NormalizedSpan } from "@crux/core";
import type { StoredTrajectoryStep } from "@crux/db";
import { nsToIso } from "../time.ts";

function errorMessage(span: NormalizedSpan): string | null {
  if (!span.isError) return null;
  const exception = span.content.exceptions.find((e) => e.message !== "" || e.type !== "");
  if (exception) return exception.message !== "" ? exception.message : exception.type;
  if (span.status.message !== "") return span.status.message;
  return span.errorType;
}

export function trajectoryStepView(step: StoredTrajectoryStep, span: NormalizedSpan | undefined) {
  const { startNs, ...rest } = step;
  const text = span?.content.text();
  return {
    ...rest,
    time: nsToIso(startNs),
    spanName: span?.name ?? null,
    text: {
      input: text?.input ?? null,
      args: text?.toolArgs ?? null,
      output: text?.output ?? null,
      error: span ? errorMessage(span) : null,
    },
  };
}
