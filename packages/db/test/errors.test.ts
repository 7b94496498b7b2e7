import { describe, expect, it } from "vitest";
import { describeStorageError, isDataRejected, isStatementTimedOut, isStorageUnavailable } from "../src/errors.ts";

function pgErr(code: string, message = "boom") {
  return Object.assign(new Error(message), { code });
}

describe("storage error classification", () => {
  it("connection failures are unavailable, wherever they sit in the cause chain", () => {
    expect(isStorageUnavailable(pgErr("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432"))).toBe(true);
    expect(isStorageUnavailable(pgErr("57P01", "terminating connection due to administrator command"))).toBe(true);
    expect(isStorageUnavailable(pgErr("08006"))).toBe(true);
    expect(isStorageUnavailable(pgErr("53300", "sorry, too many clients already"))).toBe(true);
    expect(isStorageUnavailable(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isStorageUnavailable(new Error("Failed query: select 1", { cause: pgErr("ECONNRESET") }))).toBe(true);
    expect(isStorageUnavailable(new AggregateError([pgErr("ECONNREFUSED")], ""))).toBe(true);
  });

  it("statement and data errors are not unavailable", () => {
    expect(isStorageUnavailable(pgErr("22P02", "invalid input syntax"))).toBe(false);
    expect(isStorageUnavailable(pgErr("42P01", "relation does not exist"))).toBe(false);
    expect(isStorageUnavailable(new Error("something else"))).toBe(false);
    expect(isDataRejected(pgErr("22003", "value out of range"))).toBe(true);
    expect(isDataRejected(pgErr("08006"))).toBe(false);
  });

  it("a statement cancelled by its timeout is told apart, wherever it sits in the cause chain", () => {
    const timedOut = pgErr("57014", "canceling statement due to statement timeout");
    expect(isStatementTimedOut(timedOut)).toBe(true);
    expect(isStatementTimedOut(new Error("Failed query: select 1", { cause: timedOut }))).toBe(true);
    expect(isStorageUnavailable(timedOut)).toBe(false);
    expect(isStatementTimedOut(pgErr("57P01"))).toBe(false);
    expect(isStatementTimedOut(pgErr("ECONNRESET"))).toBe(false);
  });

  it("describes a failure without the SQL text or parameters drizzle puts in its message", () => {
    const wrapped = new Error("Failed query: insert into spans values ($1)\nparams: secret-value", {
      cause: pgErr("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432"),
    });
    const d = describeStorageError(wrapped);
    expect(d.message).toBe("ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:5432");
    expect(JSON.stringify(d)).not.toContain("secret-value");
    expect(describeStorageError(pgErr("23505", "duplicate key"))).toEqual({ message: "duplicate key", sqlState: "23505" });
  });
});
