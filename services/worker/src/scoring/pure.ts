import { isPermanent, PermanentError } from "@crux/core";

/** Runs pure code (packages/core); anything it throws is a property of its input, hence permanent (docs/engineering.md §1). */
export function pure<T>(what: string, traceId: string, run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (isPermanent(err)) throw err;
    throw new PermanentError("scoring_failed", `${what} failed for trace ${traceId}: ${err instanceof Error ? err.message : String(err)}`, {
      cause: String(err),
    });
  }
}
