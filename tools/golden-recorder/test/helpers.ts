import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import type { ExportJson } from "../src/otel.ts";

export function scriptedTotals(calls: ReadonlyArray<{ input: number; output: number }>): { input: number; output: number } {
  return calls.reduce((t, c) => ({ input: t.input + c.input, output: t.output + c.output }), { input: 0, output: 0 });
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** The export must not contain this checkout's path, the home directory, or the host name. */
export function expectNoMachineSpecificValues(json: ExportJson): void {
  const text = JSON.stringify(json);
  expect(text).not.toContain(repoRoot);
  expect(text).not.toContain(os.homedir() + "/");
  expect(text).not.toMatch(/[\s("'=](file:\/\/)?\/(work|home|root|tmp|Users)\//);
  const host = os.hostname();
  if (host.length >= 4) expect(text).not.toContain(host);
  expect(text).not.toContain('"process.pid"');
}
