/** One logger shape for every service: pino, JSON lines, level from config. */
import { pino, type Logger as PinoLogger } from "pino";

export type Logger = PinoLogger;
export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

export function createLogger(opts: { level: LogLevel; name: string }): Logger {
  return pino({ level: opts.level, name: opts.name });
}
