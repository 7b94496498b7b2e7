import { pino, type Logger } from "pino";

export interface LogEntry {
  level: string;
  msg: string;
  /** The entry's fields, without pino's own (level, time, pid, hostname). */
  extra: Record<string, unknown>;
}

/** A real pino logger (debug and up) whose lines the test can read back. */
export function recordingLog(): { entries: LogEntry[]; log: Logger } {
  const entries: LogEntry[] = [];
  const log = pino(
    { level: "debug", formatters: { level: (label) => ({ level: label }) } },
    {
      write(line: string) {
        const { level, msg, time: _time, pid: _pid, hostname: _hostname, ...extra } = JSON.parse(line) as Record<string, unknown>;
        entries.push({ level: String(level), msg: String(msg), extra });
      },
    },
  );
  return { entries, log };
}
