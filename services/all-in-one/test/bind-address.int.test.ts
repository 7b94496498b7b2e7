/**
 * Where `pnpm start` (a real child process) listens: with auth off, only on
 * 127.0.0.1 for all three ports, unless CRUX_HOST says otherwise; with auth
 * on, on every interface as before. Read from the kernel's socket table
 * (/proc/net/tcp, tcp6), not from what the banner claims; the banner is
 * checked to say the same.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { killLeftovers, spawnScript, type CruxProcess } from "./processes.ts";

afterEach(() => killLeftovers());

/** The local addresses listening (state 0A) on `port`, as the kernel reports them. */
function listeners(port: number): string[] {
  const out: string[] = [];
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 4 || cols[3] !== "0A") continue;
      const [hexAddress, hexPort] = cols[1]!.split(":");
      if (parseInt(hexPort!, 16) !== port) continue;
      out.push(decodeAddress(hexAddress!));
    }
  }
  return out;
}

function decodeAddress(hex: string): string {
  if (hex.length === 8) {
    return hex
      .match(/../g)!
      .reverse()
      .map((b) => parseInt(b, 16))
      .join(".");
  }
  // IPv6: four little-endian 32-bit words.
  const words = hex.match(/.{8}/g)!.map((w) => w.match(/../g)!.reverse().join(""));
  const groups = words
    .join("")
    .match(/.{4}/g)!
    .map((g) => parseInt(g, 16).toString(16));
  const text = groups.join(":");
  return text === "0:0:0:0:0:0:0:0" ? "::" : text === "0:0:0:0:0:ffff:7f00:1" ? "::ffff:127.0.0.1" : text;
}

async function bannerPortsOf(crux: CruxProcess): Promise<number[]> {
  const [, http] = await crux.waitFor(/OTLP\/HTTP\s+http:\/\/[^\s]+:(\d+)\/v1\/traces/, 90_000);
  const [, grpc] = await crux.waitFor(/OTLP\/gRPC\s+[^\s]+:(\d+)/);
  const [, api] = await crux.waitFor(/API\s+http:\/\/[^\s]+:(\d+)\/api\/v1\/traces/);
  return [Number(http), Number(grpc), Number(api)];
}

describe("bind address of the embedded default (pnpm start)", () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
  const start = (env: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), "crux-bind-"));
    dirs.push(dir);
    return spawnScript("start", [], { CRUX_DATA_DIR: join(dir, "data"), CRUX_OTLP_HTTP_PORT: "0", CRUX_OTLP_GRPC_PORT: "0", CRUX_API_PORT: "0", ...env });
  };

  it("auth off: every port on 127.0.0.1 only, and the banner says so", async () => {
    const crux = start({ CRUX_AUTH: "false" });
    const ports = await bannerPortsOf(crux);
    for (const port of ports) expect(listeners(port), `port ${port}`).toEqual(["127.0.0.1"]);
    expect(crux.stdout()).toMatch(/listening\s+on 127\.0\.0\.1 only \(auth is off/);
    expect(crux.stdout()).toMatch(/outbound\s+.*loopback/);
    crux.signalGroup("SIGINT");
    await crux.exited;
  }, 120_000);

  it("auth off with CRUX_HOST=0.0.0.0: every interface, and the banner says plainly that anyone reaching it reads everything", async () => {
    const crux = start({ CRUX_AUTH: "false", CRUX_HOST: "0.0.0.0" });
    const ports = await bannerPortsOf(crux);
    for (const port of ports) expect(listeners(port), `port ${port}`).toEqual(["0.0.0.0"]);
    expect(crux.stdout()).toMatch(/with auth OFF, anyone who can reach these ports reads every trace/);
    crux.signalGroup("SIGINT");
    await crux.exited;
  }, 120_000);

  it("auth on: every interface, as before", async () => {
    const crux = start({ CRUX_AUTH: "true" });
    const ports = await bannerPortsOf(crux);
    for (const port of ports) expect(listeners(port), `port ${port}`).toEqual(["0.0.0.0"]);
    expect(crux.stdout()).toMatch(/listening\s+on every interface \(0\.0\.0\.0\)\n/);
    crux.signalGroup("SIGINT");
    await crux.exited;
  }, 120_000);
});
