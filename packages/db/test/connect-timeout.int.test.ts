/**
 * A Postgres that accepts connections and never answers (a network dropping
 * packets) fails queries within the connect timeout, classified as
 * unavailable, instead of holding them until the caller gives up.
 */
import { createServer, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { createDatabase, isStorageUnavailable } from "../src/index.ts";

describe("connect timeout", () => {
  it("a server that never answers fails the query as unavailable within the timeout", async () => {
    const sockets: Socket[] = [];
    const silent = createServer((s) => void sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const port = (silent.address() as { port: number }).port;
    const database = await createDatabase({ url: `postgres://postgres@127.0.0.1:${port}/none`, poolSize: 1, connectTimeoutMs: 300 });
    try {
      const started = Date.now();
      const err = await database.ping().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).not.toBeNull();
      expect(isStorageUnavailable(err)).toBe(true);
      expect(Date.now() - started).toBeLessThan(5_000); // without a connect timeout it would never settle
    } finally {
      await database.close();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });
});
