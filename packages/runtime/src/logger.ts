/** One logger shape for every service: pino, JSON lines, level from config. */
import { pino, type DestinationStream, type Logger as PinoLogger, type LoggerOptions } from "pino";

export type Logger = PinoLogger;
export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

/**
 * Secrets never reach a log line, even when a caller logs an object holding one: provider keys
 * (`apiKey`, judge `credentials`) and request credentials are replaced by "[redacted]".
 */
export const redactedLogPaths = [
  "apiKey",
  "*.apiKey",
  "*.*.apiKey",
  "credentials",
  "*.credentials",
  "req.headers.authorization",
  'req.headers["x-api-key"]',
  "headers.authorization",
  'headers["x-api-key"]',
];

/** `destination` (default stdout) lets tests capture the JSON lines a service writes. */
export function createLogger(opts: { level: LogLevel; name: string; destination?: DestinationStream }): Logger {
  const options: LoggerOptions = { level: opts.level, name: opts.name, redact: { paths: redactedLogPaths, censor: "[redacted]" } };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}
