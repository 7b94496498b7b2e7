/**
 * A runner behind a real HTTP server on loopback, for the end-to-end experiment and replay tests:
 * it checks each dispatch's Standard Webhooks signature (401 when it does not verify), answers 202,
 * and hands the run to the test's fake system; close() waits for the system's exports.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

export interface FakeRunner {
  url: string;
  /** The secret Crux signs with, known once the runner is registered. */
  setSecret(secret: string): void;
  /** The verified dispatches, in arrival order. */
  received: any[];
  badSignatures(): number;
  close(): Promise<void>;
}

export async function startFakeRunner(runSystem: (run: any) => Promise<unknown>): Promise<FakeRunner> {
  let secret = "";
  const received: any[] = [];
  let badSignatures = 0;
  const exports: Promise<unknown>[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let run: any;
      try {
        run = new Webhook(secret).verify(Buffer.concat(chunks).toString("utf8"), {
          "webhook-id": String(req.headers["webhook-id"]),
          "webhook-timestamp": String(req.headers["webhook-timestamp"]),
          "webhook-signature": String(req.headers["webhook-signature"]),
        });
      } catch {
        badSignatures++;
        res.statusCode = 401;
        res.end("bad signature");
        return;
      }
      received.push(run);
      res.statusCode = 202;
      res.end("accepted");
      // An export that fails leaves the run unscored: the test's progress checks then say so.
      exports.push(runSystem(run).catch(() => undefined));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/run`,
    setSecret: (s) => (secret = s),
    received,
    badSignatures: () => badSignatures,
    close: async () => {
      await Promise.all(exports);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
