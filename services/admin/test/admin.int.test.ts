/**
 * `pnpm crux` as the process users run: a plain one-line error (no stack)
 * when the embedded folder is held by a running Crux or Postgres is down.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createDatabase, ensureProject, getTrace, getTraceSummary, listTraceSpans, migrate, schema, type PgliteDatabase } from "@crux/db";
import { describe, expect, it } from "vitest";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

function runAdmin(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // Only what the command reads: the run's DATABASE_URL must not leak into the embedded case.
    const child = spawn(process.execPath, ["--import", "tsx", "services/admin/src/main.ts", ...args], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? "", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("pnpm crux (admin CLI) as a process", () => {
  it("refuses a data folder held by a running Crux with one line, and works once it is free", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crux-admin-"));
    const holder = await createDatabase({ dataDir: dir });
    try {
      const locked = await runAdmin(["keys", "create", "--project", "p1"], { CRUX_DATA_DIR: dir });
      expect(locked.code).toBe(1);
      expect(locked.stderr.trim()).toMatch(new RegExp(`^crux: data folder ${dir} is in use by another Crux \\(pid ${process.pid}\\): stop it first`));
      expect(locked.stderr).not.toMatch(/\n\s+at /);
      await holder.close();
      const free = await runAdmin(["keys", "create", "--project", "p1"], { CRUX_DATA_DIR: dir });
      expect(free.code).toBe(0);
      expect(free.stdout).toMatch(/API key for project 'p1'/);
    } finally {
      await holder.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("says Postgres is unreachable in one line instead of a stack", async () => {
    const r = await runAdmin(["migrate"], { DATABASE_URL: "postgres://postgres@127.0.0.1:1/none" });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(/^crux: the database is unreachable \(.*ECONNREFUSED.*\); check DATABASE_URL/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
  it("renormalize re-reads stored spans with the current normalizer and requests their re-scoring", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crux-admin-"));
    const trace = "ab".repeat(16);
    try {
      const db = (await createDatabase({ dataDir: dir })) as PgliteDatabase;
      await migrate(db);
      await ensureProject(db, "p1", "p1");
      // A smolagents agent span as the earlier normalizer stored it: named "<agent>.run" verbatim.
      await db.pglite.exec(`INSERT INTO traces (project_id, trace_id, start_ns, end_ns, span_count, error_count, llm_calls, tool_calls,
          raw_input_tokens, raw_output_tokens, has_error, dirty)
        VALUES ('p1', '${trace}', 1, 2, 1, 0, 0, 0, 0, 0, false, false)`);
      await db.pglite.exec(`INSERT INTO spans (project_id, trace_id, span_id, trace_state, flags, name, kind, start_ns, end_ns, status_code,
          status_message, operation, convention, agent_name, is_error, tags, attributes, events, links, resource, scope, limits_applied,
          dropped_attributes_count, dropped_events_count, dropped_links_count)
        VALUES ('p1', '${trace}', '00000000000000a1', '', 0, 'logistics_planner.run', 1, 1, 2, 0, '', 'agent', 'openinference', 'logistics_planner.run',
          false, '{}', '{"openinference.span.kind": "AGENT"}', '[]', '[]', '{}',
          '{"name": "openinference.instrumentation.smolagents", "version": "0.1.34", "attributes": {}}',
          '{"truncatedKeys": [], "droppedAttributes": 0}', 0, 0, 0)`);
      await db.close();

      const r = await runAdmin(["renormalize", "--project", "p1"], { CRUX_DATA_DIR: dir });
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout.trim()).toBe(
        "re-read 1 spans of 1 traces in project 'p1': 1 spans in 1 traces changed; all 1 traces are requested for scoring (the worker re-scores them)",
      );

      const after = await createDatabase({ dataDir: dir });
      try {
        const [span] = (await listTraceSpans(after, "p1", trace)) ?? [];
        expect(span).toMatchObject({ operation: "agent", agentName: "logistics_planner" });
        expect((await getTraceSummary(after, "p1", trace))?.scoreRequestedAt).toBeInstanceOf(Date);
      } finally {
        await after.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it("requests a re-score of a project's settled traces, and refuses a time that is not one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crux-admin-"));
    try {
      const database = await createDatabase({ dataDir: dir });
      await migrate(database);
      await ensureProject(database, "p1", "p1");
      const traceId = "0af7651916cd43dd8448eb211c80319c";
      // A settled trace of June 2025 whose score request was answered.
      await database.db.insert(schema.traces).values({
        projectId: "p1",
        traceId,
        startNs: 1_750_000_000_000_000_000n,
        endNs: 1_750_000_000_000_001_000n,
        spanCount: 1,
        errorCount: 0,
        llmCalls: 0,
        toolCalls: 0,
        rawInputTokens: 0,
        rawOutputTokens: 0,
        hasError: false,
        dirty: false,
        spanSetHash: "h",
      });
      await database.close();

      const bad = await runAdmin(["rescore", "--project", "p1", "--from", "yesterday"], { CRUX_DATA_DIR: dir });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--from "yesterday" is not a time/);
      const r = await runAdmin(["rescore", "--project", "p1", "--from", "2025-06-01T00:00:00Z"], { CRUX_DATA_DIR: dir });
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/re-score requested for 1 trace\(s\) of project 'p1'/);
      const after = await createDatabase({ dataDir: dir });
      expect((await getTrace(after, "p1", traceId))!.trace.scoreRequestedAt).toBeInstanceOf(Date);
      await after.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
