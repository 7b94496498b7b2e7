/**
 * The benchmarks' OTLP/HTTP client: node:http with keep-alive (the leanest
 * client: on a small machine the load generator's CPU is taken from the
 * receiver and Postgres), protobuf bodies, and a 429 retried after its
 * Retry-After as an exporter does, counted in `throttled`.
 */
import http from "node:http";

export function createOtlpClient(port: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const post = (p: Uint8Array) =>
    new Promise<{ status: number; body: string; retryAfterS: number }>((resolve, reject) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port,
          path: "/v1/traces",
          method: "POST",
          agent,
          headers: { "content-type": "application/x-protobuf", "content-length": p.length },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), retryAfterS: Number(res.headers["retry-after"] ?? 1) || 1 }),
          );
        },
      );
      req.on("error", reject);
      req.end(p);
    });
  const client = {
    /** 429 answers retried so far. */
    throttled: 0,
    async send(p: Uint8Array): Promise<void> {
      for (let tries = 1; ; tries++) {
        const res = await post(p);
        if (res.status === 200) return;
        if (res.status !== 429 || tries >= 10) throw new Error(`receiver answered ${res.status}: ${res.body}`);
        client.throttled++;
        await new Promise((r) => setTimeout(r, res.retryAfterS * 1000));
      }
    },
    close: () => agent.destroy(),
  };
  return client;
}
