import { defineConfig } from "vitest/config";

// Two projects, by file suffix (docs/engineering.md §9): *.test.ts is pure and fast;
// *.int.test.ts talks to real Postgres/Redis (DATABASE_URL, REDIS_URL) and
// always to the embedded default (PGlite, in-process queue).
export default defineConfig({
  test: {
    // Integration files mostly wait on processes, Postgres and Redis: two at a time even on two cores.
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: "unit",
          include: ["{packages,services,tools}/*/{src,test}/**/*.test.ts"],
          exclude: ["**/*.int.test.ts", "**/node_modules/**"],
        },
      },
      {
        test: {
          name: "integration",
          include: ["{packages,services,tools}/*/{src,test}/**/*.int.test.ts"],
          exclude: ["**/node_modules/**"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
