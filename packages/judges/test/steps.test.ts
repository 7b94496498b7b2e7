/** The numbered steps the judges read (src/steps.ts). */
import { prepareTrace } from "@crux/core";
import { agentSpec, exceptionEvent, orderedTrace, spanIdOf, toolSpec } from "@crux/core/testing";
import { describe, expect, it } from "vitest";
import { stepViews } from "../src/steps.ts";

describe("stepViews", () => {
  it("shows a failed step's error type with the exception and status messages the tracer sent", () => {
    const failed = toolSpec(spanIdOf(2), spanIdOf(1), "fetch_prices", {
      agentName: "searcher",
      isError: true,
      errorType: "TimeoutError",
      status: { code: 2, message: "upstream took 30 s" },
      events: [exceptionEvent("TimeoutError", "GET https://prices.example/eur timed out after 30 s")],
      // As the normalizer reads the exception event into content (packages/otlp).
      content: { exceptions: [{ type: "TimeoutError", message: "GET https://prices.example/eur timed out after 30 s" }] },
    });
    const bare = toolSpec(spanIdOf(3), spanIdOf(1), "fetch_rates", { agentName: "searcher", isError: true, errorType: "HTTPError" });
    const views = stepViews(prepareTrace(orderedTrace(agentSpec(spanIdOf(1), null, "searcher"), failed, bare)));
    const errorOf = (spanId: string) => views.find((v) => v.spanId === spanId)?.fields.find((f) => f.name === "error")?.text;
    expect(errorOf(spanIdOf(2))).toBe("TimeoutError: GET https://prices.example/eur timed out after 30 s | upstream took 30 s");
    // Without a message, the type alone.
    expect(errorOf(spanIdOf(3))).toBe("HTTPError");
  });
});
