/**
 * `pnpm crux` as the process users run: a plain one-line error (no stack)
 * when the embedded folder is held by a running Crux or Postgres is down.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  createDatabase,
  ensureProject,
  getTrace,
  getTraceSummary,
  listApiKeys,
  listTraceSpans,
  migrate,
  schema,
  touchApiKey,
  type PgliteDatabase,
} from "@crux/db";
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
      expect(free.stdout).toMatch(/API key 'default' for project 'p1', scope full/);
    } finally {
      await holder.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("prints its usage for --help and for a mistyped command, without a stack", async () => {
    const help = await runAdmin(["--help"], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: pnpm crux <command>/);
    expect(help.stdout).toMatch(/keys rotate <key id>/);
    expect(help.stderr).toBe("");
    const typo = await runAdmin(["keys", "craete", "--project", "p1"], {});
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/^crux: unknown command 'keys craete'\n\nusage: pnpm crux <command>/);
    const badOption = await runAdmin(["keys", "create", "--projcet", "p1"], {});
    expect(badOption.code).toBe(2);
    expect(badOption.stderr).toMatch(/^crux: Unknown option '--projcet'/);
    expect(badOption.stderr).not.toMatch(/\n\s+at /);
    const badScope = await runAdmin(["keys", "create", "--scope", "admin"], {});
    expect(badScope.code).toBe(2);
    expect(badScope.stderr).toMatch(/^crux: unknown scope 'admin': use one of ingest, read, full/);
  });

  it("creates keys with a scope, lists them with their last use, rotates and revokes them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crux-admin-"));
    const env = { CRUX_DATA_DIR: dir };
    try {
      const created = await runAdmin(["keys", "create", "--project", "p1", "--name", "tracer", "--scope", "ingest"], env);
      expect(created.code).toBe(0);
      const key = created.stdout.trim().split("\n").at(-1)!;
      expect(key).toMatch(/^crux_/);
      await runAdmin(["keys", "create", "--project", "p2", "--name", "grafana", "--scope", "read"], env);

      const database = await createDatabase({ dataDir: dir });
      const [tracer] = await listApiKeys(database, "p1");
      await touchApiKey(database, tracer!.id, new Date("2026-05-01T10:00:00Z"));
      await database.close();

      const listed = await runAdmin(["keys", "list"], env);
      expect(listed.code).toBe(0);
      const lines = listed.stdout.trim().split("\n");
      expect(lines[0]).toMatch(/^id\s+project\s+name\s+scope\s+prefix\s+created\s+last used\s+revoked$/);
      expect(lines[1]).toMatch(new RegExp(`^${tracer!.id}\\s+p1\\s+tracer\\s+ingest\\s+${key.slice(0, 8)}\\s+\\S+\\s+2026-05-01T10:00:00Z\\s+-$`));
      expect(lines[2]).toMatch(/\sp2\s+grafana\s+read\s.*\snever\s+-$/);
      expect(listed.stdout).not.toContain(key);
      expect((await runAdmin(["keys", "list", "--project", "p2"], env)).stdout.trim().split("\n")).toHaveLength(2);

      const rotated = await runAdmin(["keys", "rotate", tracer!.id], env);
      expect(rotated.code).toBe(0);
      expect(rotated.stdout).toMatch(new RegExp(`^API key ${tracer!.id} revoked; its replacement \\S+ for project 'p1', scope ingest`));
      const replacement = rotated.stdout.trim().split("\n").at(-1)!;
      expect(replacement).toMatch(/^crux_/);
      expect(replacement).not.toBe(key);

      const again = await runAdmin(["keys", "revoke", tracer!.id], env);
      expect(again.code).toBe(1);
      expect(again.stderr.trim()).toBe(`crux: no active API key with id ${tracer!.id} (see \`pnpm crux keys list\`)`);
      const check = await createDatabase({ dataDir: dir });
      const p1 = await listApiKeys(check, "p1");
      await check.close();
      // Oldest first: the revoked original, then its active replacement.
      expect(p1.map((k) => [k.name, k.scope, k.revokedAt === null])).toEqual([
        ["tracer", "ingest", false],
        ["tracer", "ingest", true],
      ]);
      const newId = p1.find((k) => k.revokedAt === null)!.id;
      const revoked = await runAdmin(["keys", "revoke", newId], env);
      expect(revoked.code).toBe(0);
      expect(revoked.stdout).toMatch(/revoked/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000); // eight CLI processes, each opening the embedded database

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
