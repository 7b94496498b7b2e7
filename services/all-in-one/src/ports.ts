/**
 * Listening ports of the all-in-one process and what to say when one is
 * taken. They are checked before the database opens, so a second `pnpm start`
 * fails in about a second instead of after PGlite's start-up and migrations.
 */
import { createServer } from "node:net";
import { bindHostOf } from "@crux/config";
import type { AllInOneConfig } from "./config.ts";

const portSettings = [
  { setting: "CRUX_OTLP_HTTP_PORT", label: "OTLP/HTTP" },
  { setting: "CRUX_OTLP_GRPC_PORT", label: "OTLP/gRPC" },
  { setting: "CRUX_API_PORT", label: "REST API" },
] as const;

type PortSetting = (typeof portSettings)[number]["setting"];

export class PortInUseError extends Error {
  override readonly name = "PortInUseError";
  constructor(
    readonly port: number,
    readonly setting: PortSetting,
    label: string,
  ) {
    super(`port ${port} (${label}) is already in use: another Crux may be running; set ${setting} to use another port`);
  }
}

/** Throws PortInUseError for the first configured port something else listens on (port 0 is never taken). */
export async function assertPortsFree(config: Pick<AllInOneConfig, "CRUX_HOST" | "CRUX_AUTH" | PortSetting>): Promise<void> {
  const host = bindHostOf(config.CRUX_HOST, config.CRUX_AUTH);
  for (const { setting, label } of portSettings) {
    const port = config[setting];
    if (port !== 0 && !(await canListen(host, port))) throw new PortInUseError(port, setting, label);
  }
}

/**
 * Turns a listen failure into PortInUseError when it is EADDRINUSE on one of
 * the configured ports (net errors carry `port`; gRPC only names it in its
 * message), else returns the error unchanged.
 */
export function asPortInUse(err: unknown, config: Pick<AllInOneConfig, PortSetting>): unknown {
  if (!(err instanceof Error)) return err;
  const code = (err as NodeJS.ErrnoException).code;
  if (code !== "EADDRINUSE" && !/EADDRINUSE/.test(err.message)) return err;
  const netPort = (err as { port?: unknown }).port;
  const port = typeof netPort === "number" ? netPort : Number(/EADDRINUSE[^\]]*:(\d+)/.exec(err.message)?.[1]);
  const match = portSettings.find((p) => config[p.setting] === port);
  return match ? new PortInUseError(port, match.setting, match.label) : err;
}

function canListen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", (err: NodeJS.ErrnoException) => (err.code === "EADDRINUSE" ? resolve(false) : reject(err)));
    server.listen({ host, port }, () => server.close(() => resolve(true)));
  });
}
