/** One logger shape for every service: pino, JSON lines, level from config. */
import { pino, type DestinationStream, type Logger as PinoLogger } from "pino";

export type Logger = PinoLogger;
export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

/** `destination` (default stdout) lets tests capture the JSON lines a service writes. */
export function createLogger(opts: { level: LogLevel; name: string; destination?: DestinationStream }): Logger {
  return opts.destination ? pino({ level: opts.level, name: opts.name }, opts.destination) : pino({ level: opts.level, name: opts.name });
}
