/**
 * The web UI (services/web, built to static files) served at `/`: hashed assets under /assets/
 * cached for a year (their names change with their content), index.html never cached and sent
 * with a Content-Security-Policy that allows scripts, styles and connections to this origin only
 * (span content is untrusted: the UI renders it as text, and no injected markup could run a
 * script). The UI's pages (/runs/..., /alerts) get index.html; no spelling of /api/... or /v1/...
 * ever does (percent-encoded, case or dot variants included): only the UI's page names, in plain
 * segments, are client routes. GET /api/ui-config, unauthenticated, tells the UI whether to ask for an API key.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fastifyStatic from "@fastify/static";
import type { Logger } from "@crux/runtime";
import type { FastifyInstance, FastifyReply, FastifyRequest, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from "fastify";

type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, Logger>;

export interface UiOptions {
  /** The built UI (a folder with index.html and assets/); default services/web/dist. Missing: `/` says how to build it. */
  root?: string;
  /** Whether the API asks for keys: the UI then shows its sign-in. */
  authRequired: boolean;
  /** The OTLP/HTTP port, for the UI's first-trace hint; null when this process does not receive (the API service alone). */
  otlpHttpPort?: () => number | null;
}

const defaultUiRoot = (): string => fileURLToPath(new URL("../../web/dist", import.meta.url));

const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** The UI's pages (services/web/src/App.tsx): only these paths, and `/`, get the page. */
const clientPages = new Set(["runs", "failure-modes", "agents", "alerts", "judges", "config", "compare", "experiments"]);
const clientRoutePattern = /^\/(?:[a-z][a-z0-9-]*(?:\/[A-Za-z0-9_-]+)*)?\/?$/;

/**
 * A path the UI routes itself: one of its pages, in plain segments only (no %, no dots, no double
 * slashes, lowercase page names), so no spelling of /api or /v1 and no mistyped path gets the page.
 */
export function isClientRoute(url: string): boolean {
  const pathOnly = url.split("?")[0] ?? "";
  if (!clientRoutePattern.test(pathOnly)) return false;
  const first = pathOnly.split("/")[1] ?? "";
  return first === "" || clientPages.has(first);
}

function uiHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header("content-security-policy", contentSecurityPolicy)
    .header("x-content-type-options", "nosniff")
    .header("referrer-policy", "no-referrer")
    .header("x-frame-options", "DENY")
    .header("cache-control", "no-cache");
}

export interface UiHandle {
  /** For the not-found handler: sends index.html for a client route (true), or leaves the request to the JSON 404 (false). */
  fallback(req: FastifyRequest, reply: FastifyReply): boolean;
}

export async function registerUi(app: App, opts: UiOptions): Promise<UiHandle> {
  const root = opts.root ?? defaultUiRoot();
  const indexFile = path.join(root, "index.html");
  const built = existsSync(indexFile);
  const indexHtml = built ? readFileSync(indexFile, "utf8") : null;

  app.get("/api/ui-config", { schema: { hide: true } }, async () => ({ authRequired: opts.authRequired, otlpHttpPort: opts.otlpHttpPort?.() ?? null }));

  if (built) {
    await app.register(fastifyStatic, {
      root: path.join(root, "assets"),
      prefix: "/assets/",
      index: false,
      wildcard: true,
      decorateReply: false,
      cacheControl: false,
      setHeaders: (res) => {
        res.header("cache-control", "public, max-age=31536000, immutable");
        res.header("x-content-type-options", "nosniff");
      },
    });
  }

  const sendIndex = (reply: FastifyReply) => {
    if (indexHtml === null) {
      return reply
        .code(404)
        .type("text/plain; charset=utf-8")
        .send("The web UI is not built. Run `npx --yes pnpm@10.34.8 install` in the Crux folder (it builds services/web), then restart.\n");
    }
    return uiHeaders(reply).type("text/html; charset=utf-8").send(indexHtml);
  };
  app.get("/", { schema: { hide: true } }, async (_req, reply) => sendIndex(reply));

  return {
    fallback(req, reply) {
      if ((req.method !== "GET" && req.method !== "HEAD") || !isClientRoute(req.url)) return false;
      void sendIndex(reply);
      return true;
    },
  };
}
