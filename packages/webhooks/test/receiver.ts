import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

type Received = { headers: IncomingMessage["headers"]; body: string; method: string };
type Handler = (req: IncomingMessage, res: ServerResponse, received: Received) => void;

/** A real HTTP receiver on 127.0.0.1: records each request and answers with the next handler (the last one repeats). */
export async function startReceiver(...handlers: Handler[]) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const entry = { headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), method: req.method ?? "" };
      received.push(entry);
      const handler = handlers[Math.min(received.length - 1, handlers.length - 1)];
      if (handler === undefined) res.end();
      else handler(req, res, entry);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const answer =
  (status: number, body = "", headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };
