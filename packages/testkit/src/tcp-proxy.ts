/**
 * A TCP proxy in front of a real server (Postgres, Redis) for fault tests:
 * `down()` drops every open connection and refuses new ones, as an outage
 * would, without touching the server other tests share; `up()` restores it.
 */
import { createServer, connect, type Server, type Socket } from "node:net";

export interface TcpProxy {
  port: number;
  /** Replace the host:port part of a URL with the proxy's. */
  urlFor(url: string): string;
  /** Drop every open connection and refuse new ones until up(). */
  down(): Promise<void>;
  /** Accept connections again on the same port. */
  up(): Promise<void>;
  /** Connections forwarded so far. */
  readonly connections: number;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }, port = 0): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let boundPort = port;
  let connections = 0;

  function listen(): Promise<void> {
    const s = createServer((client) => {
      connections++;
      const upstream = connect(target.port, target.host);
      sockets.add(client).add(upstream);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on("error", drop).on("close", drop);
      upstream.on("error", drop).on("close", drop);
      client.pipe(upstream).pipe(client);
    });
    server = s;
    return new Promise((resolve, reject) => {
      s.once("error", reject);
      s.listen(boundPort, "127.0.0.1", () => {
        const address = s.address();
        if (typeof address === "object" && address) boundPort = address.port;
        resolve();
      });
    });
  }

  async function down() {
    const s = server;
    server = null;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  await listen();
  return {
    get port() {
      return boundPort;
    },
    get connections() {
      return connections;
    },
    urlFor(url: string) {
      const u = new URL(url);
      u.hostname = "127.0.0.1";
      u.port = String(boundPort);
      return u.toString();
    },
    down,
    async up() {
      if (!server) await listen();
    },
    close: down,
  };
}
