/**
 * The embedded default as real processes on one data folder: two starting at
 * once leave exactly one running (the other says why in one line); after a
 * SIGKILL the next start takes the folder over at once, keeps the
 * acknowledged trace and scores it right away (start-up sweep) instead of
 * after the sweeper's quiet period; a clean stop frees the folder.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dataDirLockFileName } from "@crux/db";
import { MULTI_AGENT_EXPECTED } from "@crux/testkit";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { bannerPorts, exportMultiAgentTrace, killLeftovers, spawnEntry, waitForScores, type CruxProcess } from "./processes.ts";

const entry = "services/all-in-one/src/main.ts";
const folders: string[] = [];
afterEach(killLeftovers);
afterAll(() => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

function embeddedEnv(dataDir: string): Record<string, string> {
  return {
    CRUX_DATA_DIR: dataDir,
    CRUX_HOST: "127.0.0.1",
    CRUX_OTLP_HTTP_PORT: "0",
    CRUX_OTLP_GRPC_PORT: "0",
    CRUX_API_PORT: "0",
    // Jobs stay pending until the kill; the sweeper keeps its defaults (30 s interval, 60 s quiet).
    CRUX_SETTLE_DELAY_MS: "120000",
    CRUX_SETTLE_ROOT_DELAY_MS: "120000",
  };
}

/** Resolves with "running" once the banner is out, or "exited" if the process ends first. */
function outcome(crux: CruxProcess): Promise<"running" | "exited"> {
  return Promise.race([crux.waitFor(/Crux is running/, 120_000).then(() => "running" as const), crux.exited.then(() => "exited" as const)]);
}

describe("data folder lock (embedded, real processes)", () => {
  it("two at once: exactly one runs; SIGKILL then restart: starts at once, keeps and scores the acknowledged trace; a clean stop frees the folder", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "crux-data-"));
    folders.push(dataDir);
    const env = embeddedEnv(dataDir);

    const pair = [spawnEntry(entry, env), spawnEntry(entry, env)];
    const results = await Promise.all(pair.map(outcome));
    expect([...results].sort()).toEqual(["exited", "running"]);
    const winner = pair[results.indexOf("running")]!;
    const loser = pair[results.indexOf("exited")]!;
    expect((await loser.exited).code).toBe(1);
    const line = `Crux cannot start: data folder ${dataDir} is in use by another Crux (pid ${winner.child.pid}): stop it, or set CRUX_DATA_DIR to use another folder`;
    expect(loser.stderr().trim()).toBe(line);

    const ports = await bannerPorts(winner);
    const traceId = await exportMultiAgentTrace(`http://127.0.0.1:${ports.otlpHttp}/v1/traces`);
    winner.child.kill("SIGKILL");
    await winner.exited;
    expect(existsSync(join(dataDir, dataDirLockFileName))).toBe(true); // left behind, as after a crash

    const restarted = spawnEntry(entry, env);
    expect(await outcome(restarted)).toBe("running");
    const apiUrl = `http://127.0.0.1:${(await bannerPorts(restarted)).api}`;
    const detail = (await (await fetch(`${apiUrl}/api/v1/traces/${traceId}`)).json()) as any;
    expect(detail.trace.spanCount).toBe(MULTI_AGENT_EXPECTED.spanCount);
    // The sweeper alone would wait for 60 s of quiet plus up to a 30 s interval.
    const scores = await waitForScores(apiUrl, traceId, 15_000);
    expect(scores.totals.inputTokens).toBe(Object.values(MULTI_AGENT_EXPECTED.tokens).reduce((n, t) => n + t.input, 0));
    expect(restarted.stdout()).toMatch(/start-up sweep enqueued traces left dirty/);

    restarted.child.kill("SIGTERM");
    expect(await restarted.exited).toEqual({ code: 0, signal: null });
    expect(existsSync(join(dataDir, dataDirLockFileName))).toBe(false);
  }, 240_000);
});
