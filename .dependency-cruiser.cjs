/**
 * The dependency rules of docs/architecture.md, enforced on every import
 * (`pnpm deps:check`, run by .ci/run). Workspace packages resolve to their
 * source through the pnpm symlinks, so a rule names the package folder.
 */
const IO =
  "^(pg|pg-pool|drizzle-orm|@electric-sql/pglite|bullmq|ioredis|fastify|@fastify/|@grpc/|prom-client|pino)($|/)|^node:(fs|net|http|https|child_process|dgram|dns|worker_threads)$|^(fs|net|http|https|child_process|dgram|dns|worker_threads)$";

/**
 * packages/db's domain folders and the other domain folders each may import (besides sql/, schema/
 * and the top-level client, errors and secret-box). The list is an order: a folder imports only
 * folders listed before it (type-only imports aside), so no two domains import each other.
 */
const DB_DOMAINS = {
  rollups: [],
  scores: ["rollups"],
  judges: ["rollups", "scores"],
  stages: ["judges"],
  traces: ["stages"],
  config: ["scores", "stages"],
  experiments: ["rollups", "scores", "judges", "stages", "traces"],
  metrics: ["rollups", "scores", "judges", "config", "experiments"],
  alerts: ["rollups", "metrics"],
};

function dbDomainRules() {
  return Object.entries(DB_DOMAINS).map(([folder, may]) => ({
    name: `db-${folder}-imports`,
    severity: "error",
    comment: `packages/db/src/${folder}/ imports of the other domain folders only ${may.join(", ") || "none"} (DB_DOMAINS)`,
    from: { path: `^packages/db/src/${folder}/` },
    // A type-only import vanishes at run time (experiments' runners name the webhooks' stored type).
    to: { path: "^packages/db/src/[^/]+/", pathNot: `^packages/db/src/(${[folder, "sql", "schema", ...may].join("|")})/`, dependencyTypesNot: ["type-only"] },
  }));
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "runtime cycles make layers meaningless (a type-only import back is fine: it vanishes at run time)",
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
    },
    {
      name: "core-is-pure",
      severity: "error",
      comment: "packages/core imports nothing internal and nothing that does I/O",
      from: { path: "^packages/core/src" },
      to: { pathNot: "^packages/core/src", dependencyTypesNot: ["type-only"], path: `^packages/|^services/|${IO}` },
    },
    {
      name: "core-no-io-modules",
      severity: "error",
      from: { path: "^packages/core/src" },
      to: { dependencyTypes: ["npm", "core"], path: IO },
    },
    {
      name: "otlp-is-pure",
      severity: "error",
      comment: "packages/otlp: only core and protobufjs (plus reading its bundled .proto files in proto.ts)",
      from: { path: "^packages/otlp/src", pathNot: "^packages/otlp/src/proto\\.ts$" },
      to: { pathNot: "^packages/(otlp|core)/src|protobufjs|^(node:)?buffer$", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "db-no-queue-or-http",
      severity: "error",
      from: { path: "^packages/db/src" },
      to: { path: "^packages/(queue|runtime|testkit)/|bullmq|ioredis|fastify|@fastify/" },
    },
    {
      name: "db-imports-only-core-and-contracts",
      severity: "error",
      comment:
        "packages/db: of the internal packages only core and contracts (stored judge verdicts are parsed with the contracts' schema, the one declaration of their shape). It returns spans as stored; the reader that needs their content derives it with the otlp normalizer (addContent), and renormalizing takes the normalizer as a parameter",
      from: { path: "^packages/db/src" },
      to: { path: "^packages/", pathNot: "^packages/(db|core|contracts)/" },
    },
    {
      name: "db-sql-and-schema-import-no-domain",
      severity: "error",
      comment: "packages/db: sql/ (generic helpers) and schema/ (the tables) sit under every domain folder and import none of them",
      from: { path: "^packages/db/src/(sql|schema)/" },
      to: { path: "^packages/db/src/", pathNot: "^packages/db/src/(sql|schema)/" },
    },
    {
      name: "db-no-import-of-own-index",
      severity: "error",
      comment: "packages/db: index.ts is the package's surface for other packages; no file inside db imports it",
      from: { path: "^packages/db/src/.+/" },
      to: { path: "^packages/db/src/index\\.ts$" },
    },
    ...dbDomainRules(),
    {
      name: "queue-no-db-or-http",
      severity: "error",
      from: { path: "^packages/queue/src" },
      to: { path: "^packages/(db|runtime|testkit|otlp)/|drizzle-orm|^pg$|fastify|@fastify/" },
    },
    {
      name: "contracts-is-pure",
      severity: "error",
      comment:
        "packages/contracts holds the API's wire shapes: zod, and of the workspace only core's vocabulary (@crux/core/vocabulary: the MAST modes, alert metrics, per-agent counters, declared once in core); no I/O",
      from: { path: "^packages/contracts/src" },
      to: { pathNot: "^packages/contracts/src|node_modules/zod/|^packages/core/src/vocabulary\\.ts$" },
    },
    {
      name: "config-standalone",
      severity: "error",
      from: { path: "^packages/config/src" },
      to: { path: "^packages/|^services/", pathNot: "^packages/config/src" },
    },
    {
      name: "runtime-standalone",
      severity: "error",
      comment:
        "packages/runtime is the services' plumbing (logger, shutdown, metrics registry, readiness): no internal package (authentication, which reads the db, is packages/auth)",
      from: { path: "^packages/runtime/src" },
      to: { path: "^packages/|^services/", pathNot: "^packages/runtime/src" },
    },
    {
      name: "auth-only-db",
      severity: "error",
      comment: "packages/auth looks keys up through db and knows no transport",
      from: { path: "^packages/auth/src" },
      to: { path: `^packages/|^services/|fastify|@fastify/|@grpc/`, pathNot: "^packages/(auth|db)/src" },
    },
    {
      name: "webhooks-only-core-and-outbound",
      severity: "error",
      comment:
        "packages/webhooks signs and sends; it stores nothing and serves nothing: of the internal packages only core and outbound (every send goes through the outbound guard)",
      from: { path: "^packages/webhooks/src" },
      to: {
        path: `^packages/|^services/|^(pg|pg-pool|drizzle-orm|@electric-sql/pglite|bullmq|ioredis|fastify|@fastify/)($|/)`,
        pathNot: "^packages/(webhooks|core|outbound)/src",
      },
    },
    {
      name: "outbound-standalone",
      severity: "error",
      comment:
        "packages/outbound is the one guard of requests to configured addresses (webhooks, judge providers): sockets and DNS, nothing internal, no storage, queue or server module",
      from: { path: "^packages/outbound/src" },
      to: {
        path: `^packages/|^services/|^(pg|pg-pool|drizzle-orm|@electric-sql/pglite|bullmq|ioredis|fastify|@fastify/|@grpc/)($|/)|^node:(fs|child_process|dgram|worker_threads)$`,
        pathNot: "^packages/outbound/src",
      },
    },
    {
      name: "judges-only-core-and-contracts",
      severity: "error",
      comment:
        "packages/judges builds prompts and reads replies; its only I/O is the provider SDK client it constructs: of the internal packages only core and contracts, no storage, queue, server or socket module",
      from: { path: "^packages/judges/src" },
      to: {
        path: `^packages/|^services/|${IO}`,
        pathNot: "^packages/(judges|core|contracts)/src",
      },
    },
    {
      name: "web-only-contracts",
      severity: "error",
      comment: "services/web (the browser UI) is typed only from @crux/contracts: no other package, no Node or server module",
      from: { path: "^services/web/src" },
      to: { path: `^packages/|^services/|${IO}|^node:|^(os|path|crypto|stream|buffer|url|util)$`, pathNot: "^services/web/src|^packages/contracts/src" },
    },
    {
      name: "contracts-browser-importable",
      severity: "error",
      comment: "packages/contracts is imported by the browser UI: no Node built-in module",
      from: { path: "^packages/contracts/src" },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "packages-never-import-services",
      severity: "error",
      from: { path: "^packages/" },
      to: { path: "^services/" },
    },
    {
      name: "services-never-import-services",
      severity: "error",
      comment: "share through a package; only the all-in-one composition imports the three services",
      from: { path: "^services/([^/]+)/src", pathNot: "^services/all-in-one/" },
      to: { path: "^services/([^/]+)/", pathNot: "^services/$1/" },
    },
    {
      name: "all-in-one-composes-only-the-three",
      severity: "error",
      from: { path: "^services/all-in-one/src" },
      to: { path: "^services/admin/" },
    },
    {
      name: "testkit-only-in-tests",
      severity: "error",
      comment: "testkit is a devDependency: only tests, benchmarks and tools may import it",
      from: { path: "^(packages|services)/[^/]+/src", pathNot: "^packages/testkit/" },
      to: { path: "^packages/testkit/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "node_modules|/golden/|/dist/|/test-artifacts/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".js", ".json"],
    },
    combinedDependencies: true,
    preserveSymlinks: false,
  },
};
