/** A real HTTP receiver for webhook tests: records every request, answers from a script (then 200). */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  body: string;
}

export async function startWebhookReceiver(opts: { statuses?: number[]; port?: number } = {}) {
  const statuses = [...(opts.statuses ?? [])];
  const requests: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.statusCode = statuses.shift() ?? 200;
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    /** Parsed bodies of the requests whose JSON type is `type`. */
    ofType: (type: string) => requests.filter((r) => (JSON.parse(r.body) as { type?: string }).type === type),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A port nothing listens on (for a receiver that is down), free to listen on later. */
export async function closedPort(): Promise<number> {
  const r = await startWebhookReceiver();
  await r.close();
  return r.port;
}
