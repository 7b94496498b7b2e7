/**
 * The dependency rules of docs/architecture.md §4, checked over the source text of every
 * package and service. Each rule lists what it forbids; a violation names the
 * file and the offending import.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../..", import.meta.url));

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    if (name === "node_modules" || name.startsWith(".") || name.startsWith("_")) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(name) && !name.endsWith(".test.ts")) out.push(path);
  }
  return out;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2]!).filter(Boolean);
}

interface Violation {
  file: string;
  what: string;
}

function check(dir: string, forbid: (spec: string, file: string) => string | null): Violation[] {
  const violations: Violation[] = [];
  for (const file of sourceFiles(join(root, dir))) {
    for (const spec of importsOf(file)) {
      const why = forbid(spec, file);
      if (why) violations.push({ file: relative(root, file), what: `${spec}: ${why}` });
    }
  }
  return violations;
}

const IO_MODULES =
  /^(pg|drizzle-orm|@electric-sql\/pglite|bullmq|ioredis|fastify|@fastify\/|@grpc\/|node:(fs|net|http|https|child_process|dgram|dns|worker_threads))/;
const SERVICES = ["@crux/receiver", "@crux/worker", "@crux/api", "@crux/all-in-one", "@crux/admin"];

describe("dependency rules (docs/architecture.md §4)", () => {
  it("core imports nothing internal and no I/O", () => {
    expect(check("packages/core/src", (s) => (s.startsWith("@crux/") ? "core imports nothing internal" : IO_MODULES.test(s) ? "I/O module" : null))).toEqual(
      [],
    );
  });

  it("otlp imports only core and protobufjs, and does no I/O outside loading its .proto files", () => {
    const allowed = (s: string) => s.startsWith(".") || s === "@crux/core" || s === "protobufjs" || s === "node:buffer";
    const violations = check("packages/otlp/src", (s, file) => {
      if (file.endsWith("proto.ts") && (s === "node:url" || s === "node:path" || s === "node:fs")) return null; // reads the bundled .proto once at load
      return allowed(s) ? null : "not allowed in otlp";
    });
    expect(violations).toEqual([]);
  });

  it("core and otlp read no env, no clock and no unseeded randomness", () => {
    const bad: Violation[] = [];
    for (const dir of ["packages/core/src", "packages/otlp/src"]) {
      for (const file of sourceFiles(join(root, dir))) {
        const text = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
        for (const pattern of ["process.env", "Date.now(", "Math.random(", "new Date()", "performance.now("]) {
          if (text.includes(pattern)) bad.push({ file: relative(root, file), what: pattern });
        }
      }
    }
    expect(bad).toEqual([]);
  });

  it("contracts imports only zod and core's vocabulary (wire shapes: no other internal package, no I/O)", () => {
    expect(
      check("packages/contracts/src", (s) =>
        s.startsWith(".") || s === "zod" || s === "@crux/core/vocabulary" ? null : "contracts imports only zod and @crux/core/vocabulary",
      ),
    ).toEqual([]);
  });

  it("config imports nothing internal", () => {
    expect(check("packages/config/src", (s) => (s.startsWith("@crux/") ? "config imports nothing internal" : null))).toEqual([]);
  });

  it("runtime (logger, shutdown, metrics, readiness) imports nothing internal; auth imports only db", () => {
    expect(check("packages/runtime/src", (s) => (s.startsWith("@crux/") ? "runtime imports nothing internal" : null))).toEqual([]);
    expect(check("packages/auth/src", (s) => (s.startsWith("@crux/") && s !== "@crux/db" ? "auth imports only db" : null))).toEqual([]);
  });

  it("packages never import services", () => {
    expect(check("packages", (s) => (SERVICES.includes(s) || s.includes("/services/") ? "packages never import services" : null))).toEqual([]);
  });

  it("queue does not import db or fastify; db does not import queue or fastify", () => {
    expect(check("packages/queue/src", (s) => (s === "@crux/db" || s.startsWith("fastify") ? "forbidden in queue" : null))).toEqual([]);
    expect(
      check("packages/db/src", (s) => (s === "@crux/queue" || s === "bullmq" || s === "ioredis" || s.startsWith("fastify") ? "forbidden in db" : null)),
    ).toEqual([]);
  });

  it("webhooks imports only core and outbound of the internal packages, and no storage, queue or server module", () => {
    const forbidden = /^(pg|drizzle-orm|@electric-sql\/pglite|bullmq|ioredis|fastify|@fastify\/)($|\/)/;
    const allowed = new Set(["@crux/core", "@crux/outbound"]);
    expect(
      check("packages/webhooks/src", (s) =>
        (s.startsWith("@crux/") && !allowed.has(s)) || forbidden.test(s) ? "webhooks imports only core and outbound" : null,
      ),
    ).toEqual([]);
  });

  it("outbound (the guard of every request to a configured address) imports nothing internal, and no storage, queue or server module", () => {
    const forbidden = /^(pg|drizzle-orm|@electric-sql\/pglite|bullmq|ioredis|fastify|@fastify\/|@grpc\/)($|\/)|^node:(fs|child_process|dgram|worker_threads)$/;
    expect(
      check("packages/outbound/src", (s) => (s.startsWith("@crux/") || forbidden.test(s) ? "outbound imports nothing internal; sockets and DNS only" : null)),
    ).toEqual([]);
  });

  it("judges imports only core and contracts of the internal packages, and no storage, queue, server or socket module", () => {
    const allowed = new Set(["@crux/core", "@crux/contracts"]);
    expect(
      check("packages/judges/src", (s) =>
        (s.startsWith("@crux/") && !allowed.has(s)) || IO_MODULES.test(s) ? "judges imports only core and contracts, no I/O module" : null,
      ),
    ).toEqual([]);
  });

  it("contracts stays importable by a browser: no Node built-in module or global", () => {
    const bad: string[] = [];
    for (const file of sourceFiles(join(root, "packages/contracts/src"))) {
      const code = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
      if (/\b(process|Buffer|require|__dirname|__filename)\b/.test(code)) bad.push(relative(root, file));
    }
    expect(bad).toEqual([]);
  });

  it("the web UI imports of the workspace only contracts, and no Node module", () => {
    expect(
      check("services/web/src", (s) =>
        s.startsWith("@crux/") && s !== "@crux/contracts"
          ? "the web UI is typed only from @crux/contracts"
          : s.startsWith("node:") || IO_MODULES.test(s) || s.includes("../../")
            ? "the web UI runs in a browser: no Node or server module, nothing outside services/web"
            : null,
      ),
    ).toEqual([]);
  });

  it("services import no other service, except the all-in-one composition", () => {
    for (const svc of ["receiver", "worker", "api", "admin"]) {
      expect(check(`services/${svc}/src`, (s) => (SERVICES.includes(s) || s.includes("../../") ? "services never import other services" : null))).toEqual([]);
    }
  });

  it("only services' entry points read process.env", () => {
    const bad: string[] = [];
    for (const dir of ["packages", "services"]) {
      for (const file of sourceFiles(join(root, dir))) {
        if (!file.includes("/src/") || /services\/[^/]+\/src\/main\.ts$/.test(file) || file.includes("/testkit/")) continue;
        const code = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
        if (code.includes("process.env")) bad.push(relative(root, file));
      }
    }
    expect(bad).toEqual([]);
  });
});
