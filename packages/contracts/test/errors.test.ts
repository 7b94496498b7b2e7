import { describe, expect, it } from "vitest";
import { ErrorBody, errorRetryAfterSeconds, errorStatus, isErrorCode } from "../src/index.ts";

describe("error codes", () => {
  it("each code has one HTTP error status; only retry-later codes carry a Retry-After", () => {
    for (const [code, status] of Object.entries(errorStatus)) {
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(status, code).toBeLessThan(600);
    }
    expect(errorStatus).toMatchObject({ invalid_request: 400, unauthenticated: 401, not_found: 404, conflict: 409, internal: 500, unavailable: 503 });
    for (const code of Object.keys(errorRetryAfterSeconds)) expect(errorStatus[code as keyof typeof errorStatus], code).toBe(503);
    expect(errorRetryAfterSeconds.unavailable).toBe(5);
  });

  it("the error body accepts only the known codes", () => {
    expect(ErrorBody.parse({ code: "not_found", message: "trace x not found" })).toEqual({ code: "not_found", message: "trace x not found" });
    expect(ErrorBody.safeParse({ code: "no_such_code", message: "m" }).success).toBe(false);
    expect(isErrorCode("conflict")).toBe(true);
    expect(isErrorCode("toString")).toBe(false);
  });
});
