/**
 * Who may reach a handler is decided on the route, never on the URL's
 * spelling. Every /api/v1 route is registered inside one encapsulated scope
 * whose onRequest hook authenticates: Fastify runs a scope's hooks for the
 * routes registered in it, whatever spelling of the path the router matched
 * (`/%61pi/v1/...` routes like `/api/v1/...`, so it is authenticated like
 * it). onReady refuses to start an app with an /api route outside the scope.
 *
 * Spellings whose decoding would change which route matches (an encoded
 * slash or backslash, dot segments, doubled slashes, matrix parameters) are
 * refused before any hook or handler runs, for every path, so the router and
 * the authentication can never disagree about what was asked.
 *
 * Each route carries `config.access` ("read" for GET/HEAD, "write" otherwise
 * unless the route says so): the one place a per-route key-scope check goes
 * is `authenticateRoute` below, which hands it to packages/auth with the key.
 */
import { apiAccessOf, apiKeyFromHeaders, type Authenticator } from "@crux/auth";
import type { Logger } from "@crux/runtime";
import type { FastifyInstance, FastifyRequest, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault, RouteOptions } from "fastify";
import { ApiError } from "./errors.ts";

type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, Logger>;

type RouteAccess = "read" | "write";

declare module "fastify" {
  interface FastifyContextConfig {
    /** What the route does with the project's data; the key's scope must allow it. */
    access?: RouteAccess;
    /** Set by the authenticated scope on every route registered in it. */
    authenticated?: boolean;
  }
  interface FastifyInstance {
    /** Every route registered under /api except the public docs, with its access (read once the app is ready). */
    apiRoutes(): ApiRoute[];
  }
}

interface ApiRoute {
  method: string;
  url: string;
  access: RouteAccess | undefined;
}

/**
 * The prefix every authenticated route lives under. Public: the OpenAPI pages under /api/docs, and
 * /api/ui-config, which tells the web UI whether to ask for a key (it reads no project data).
 */
const API_PREFIX = "/api/v1";
const PUBLIC_API_PATHS = /^\/api\/(docs(\/|$)|ui-config$)/;

/**
 * Why a raw path (query excluded) is not in its one canonical spelling, or null when it is.
 * Percent-encoded letters are allowed: they decode to the same route and are authenticated by it.
 */
function nonCanonicalPath(rawPath: string): string | null {
  if (!rawPath.startsWith("/")) return "the path must start with /";
  if (rawPath.includes("\\")) return "a backslash in the path";
  if (rawPath.includes(";")) return "matrix parameters (;) in the path";
  if (/%(2f|5c|00|3b)/i.test(rawPath)) return "an encoded /, \\, ; or NUL in the path";
  if (rawPath.includes("//")) return "an empty path segment (//)";
  for (const segment of rawPath.split("/").slice(1)) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return "a malformed percent-encoding in the path";
    }
    if (decoded === "." || decoded === "..") return "a dot segment (. or ..) in the path";
  }
  return null;
}

export interface ScopeDeps {
  authenticate: Authenticator;
  /** False while the service still waits for its database: every API route answers 503. */
  started: () => boolean;
}

function firstHeader(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** A body on a route that declares none is refused rather than ignored. */
function hasBody(req: FastifyRequest): boolean {
  const length = firstHeader(req.headers["content-length"]);
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/**
 * Registers `routes` under /api/v1 inside the authenticated scope: each request is authenticated
 * before anything else of the route runs, and a handler never runs without a non-empty project id.
 */
export async function registerAuthenticatedScope(app: App, deps: ScopeDeps, routes: (scope: FastifyInstance) => Promise<void>) {
  await app.register(
    async (scope) => {
      // JSON only: Fastify's default text/plain parser would hand a string to a JSON schema (a 400
      // about types); without it the request is a 415 naming the media type to send.
      scope.removeContentTypeParser("text/plain");
      scope.addHook("onRoute", (route: RouteOptions) => {
        const readOnly =
          route.method === "GET" || route.method === "HEAD" || (Array.isArray(route.method) && route.method.every((m) => m === "GET" || m === "HEAD"));
        route.config = { ...route.config, authenticated: true, access: route.config?.access ?? (readOnly ? "read" : "write") };
        if (!route.schema?.body) {
          const refuseBody = async (req: FastifyRequest) => {
            if (hasBody(req)) throw new ApiError("invalid_request", `${req.method} ${route.url} takes no request body`);
          };
          route.preParsing = [...toArray(route.preParsing), refuseBody];
        }
      });
      scope.addHook("onRequest", async (req) => authenticateRoute(req, deps));
      await routes(scope);
    },
    { prefix: API_PREFIX },
  );
}

function toArray<T>(v: T | T[] | undefined): T[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

async function authenticateRoute(req: FastifyRequest, deps: ScopeDeps): Promise<void> {
  // Answered 503 + Retry-After by the error handler (the status and the wait belong to the code).
  if (!deps.started()) throw new ApiError("unavailable", "starting: waiting for the database; retry later");
  // The key's scope must allow what the route does with the project's data (packages/auth decides).
  const access = req.routeOptions.config.access ?? apiAccessOf(req.method);
  const auth = await deps.authenticate(
    apiKeyFromHeaders((n) => firstHeader(req.headers[n])),
    access,
  );
  if (!auth.ok) throw new ApiError(auth.failure, auth.reason);
  if (auth.projectId === "") throw new ApiError("unauthenticated", "the API key resolves to no project");
  req.projectId = auth.projectId;
}

/**
 * Root hooks: refuses a non-canonical path before anything else runs, and at start-up refuses any
 * /api route registered outside the authenticated scope (a route added in the wrong place fails
 * loudly instead of serving without a key).
 */
export function guardRouting(app: App): void {
  const apiRoutes: RouteOptions[] = [];
  app.addHook("onRoute", (route: RouteOptions) => {
    if (route.url.startsWith("/api/") && !PUBLIC_API_PATHS.test(route.url)) apiRoutes.push(route);
  });
  app.decorate("apiRoutes", () =>
    apiRoutes.flatMap((r) => (Array.isArray(r.method) ? r.method : [r.method]).map((method) => ({ method, url: r.url, access: r.config?.access }))),
  );
  app.addHook("onReady", async () => {
    const outside = apiRoutes.filter((r) => r.config?.authenticated !== true).map((r) => `${String(r.method)} ${r.url}`);
    if (outside.length > 0) throw new Error(`API routes registered outside the authenticated scope: ${outside.join(", ")}`);
  });
  app.addHook("onRequest", async (req) => {
    const query = req.raw.url?.indexOf("?") ?? -1;
    const rawPath = query === -1 ? (req.raw.url ?? "") : (req.raw.url ?? "").slice(0, query);
    const why = nonCanonicalPath(rawPath);
    if (why) throw new ApiError("invalid_request", `${why}: send the path in its plain form`);
  });
}
