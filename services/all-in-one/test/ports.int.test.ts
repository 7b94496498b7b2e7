/**
 * A port already in use: `pnpm start` (its script body, as a real process)
 * says in one line which port, which variable and that Crux may already run,
 * before opening the database; the listen itself (a port taken after the
 * check) gives the same error for each of the three servers.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PortInUseError } from "../src/ports.ts";
import { backends, startTestCrux } from "./harness.ts";
import { killLeftovers, spawnEntry } from "./processes.ts";

const held: Server[] = [];
afterEach(async () => {
  killLeftovers();
  await Promise.all(held.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function holdPort(): Promise<number> {
  const server = createServer();
  held.push(server);
  await new Promise<void>((r) => server.listen({ host: "127.0.0.1", port: 0 }, r));
  return (server.address() as { port: number }).port;
}

describe("port in use", () => {
  it("pnpm start exits 1 with one plain line, before the database is opened", async () => {
    const port = await holdPort();
    const dataDir = mkdtempSync(join(tmpdir(), "crux-ports-"));
    try {
      const crux = spawnEntry("services/all-in-one/src/main.ts", {
        CRUX_DATA_DIR: join(dataDir, "data"),
        CRUX_HOST: "127.0.0.1",
        CRUX_OTLP_HTTP_PORT: String(port),
        CRUX_OTLP_GRPC_PORT: "0",
        CRUX_API_PORT: "0",
      });
      expect((await crux.exited).code).toBe(1);
      expect(crux.stderr().trim()).toBe(
        `Crux cannot start: port ${port} (OTLP/HTTP) is already in use: another Crux may be running; set CRUX_OTLP_HTTP_PORT to use another port`,
      );
      expect(crux.stdout()).not.toMatch(/"level":60|"stack"/);
      // Failed before PGlite: no initdb (seconds on a new folder), not even the folder.
      expect(existsSync(join(dataDir, "data"))).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  const embedded = backends().find((b) => b.name === "embedded")!;
  it.each([
    ["CRUX_OTLP_HTTP_PORT", "OTLP/HTTP"],
    ["CRUX_OTLP_GRPC_PORT", "OTLP/gRPC"],
    ["CRUX_API_PORT", "REST API"],
  ])("a listen that fails with EADDRINUSE on %s is a PortInUseError naming it", async (setting, label) => {
    const port = await holdPort();
    const error = await startTestCrux(embedded, { [setting]: String(port) }).then(
      async (crux) => {
        await crux.stop();
        return undefined;
      },
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(PortInUseError);
    expect((error as Error).message).toBe(`port ${port} (${label}) is already in use: another Crux may be running; set ${setting} to use another port`);
  });
});
