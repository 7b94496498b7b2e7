/**
 * Removes machine-specific values from a recorded export before it becomes a
 * committed fixture: absolute paths (stack traces, file URLs), the host name,
 * the user name, and process attributes. Shapes are kept; only values change.
 */
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** Resource/span attribute keys whose value identifies this machine or process. */
const MACHINE_KEYS: Record<string, unknown> = {
  "host.name": "<host>",
  "host.id": "<host>",
  "host.arch": "<arch>",
  "process.pid": 0,
  "process.owner": "<user>",
  "process.executable.path": "<path>",
  "process.command": "<path>",
  "process.command_line": "<path>",
  "process.runtime.version": "<version>",
};

function literalReplacements(): Array<[string, string]> {
  const pairs: Array<[string, string]> = [
    [repoRoot, "<repo>"],
    [os.homedir(), "<home>"],
  ];
  const host = os.hostname();
  if (host.length >= 4) pairs.push([host, "<host>"]);
  const user = os.userInfo().username;
  // Short names like "root" would also hit ordinary words; those are only replaced inside paths (below).
  if (user.length >= 5) pairs.push([user, "<user>"]);
  return pairs.filter(([from]) => from.length > 1).sort((a, b) => b[0].length - a[0].length);
}

// Any remaining absolute POSIX path (e.g. the pnpm store outside the repo) becomes <path>/<last segment>.
const ABSOLUTE_PATH = /(file:\/\/)?\/(?:[\w.@+-]+\/)+([\w.@+-]+)/g;

export function scrubString(value: string): string {
  let out = value;
  for (const [from, to] of literalReplacements()) out = out.split(from).join(to);
  out = out.replace(ABSOLUTE_PATH, (match, _file, last: string) => {
    if (match.startsWith("<")) return match;
    // Keep URL-ish paths that are not filesystem paths (e.g. "/v1/traces") untouched.
    if (!/^(file:\/\/)?\/(work|home|root|tmp|usr|opt|var|private|Users|mnt|srv|nix)\//.test(match)) return match;
    return `<path>/${last}`;
  });
  return out;
}

export function scrubExport<T>(value: T): T {
  return scrubValue(value) as T;
}

function scrubValue(value: unknown): unknown {
  if (typeof value === "string") return scrubString(value);
  if (Array.isArray(value)) return value.map(scrubValue);
  if (value && typeof value === "object") {
    const obj = value as Record<string, unknown>;
    // OTLP KeyValue: {key, value: AnyValue}
    if (typeof obj.key === "string" && obj.value && typeof obj.value === "object" && obj.key in MACHINE_KEYS) {
      const replacement = MACHINE_KEYS[obj.key];
      return {
        key: obj.key,
        value: typeof replacement === "number" ? { intValue: replacement } : { stringValue: replacement },
      };
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(obj)) out[k] = scrubValue(v);
    return out;
  }
  return value;
}
