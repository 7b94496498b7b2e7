// ESLint (flat config): typescript-eslint's recommended rules, plus the
// project rules that a type checker cannot see: only a service's entry point
// (services/*/src/main.ts) reads process.env; everything else takes options.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      ".dependency-cruiser.cjs",
      "**/node_modules/**",
      "**/.crux/**",
      "migrations/**",
      "**/golden/**",
      "**/*.generated.*",
      "**/dist/**",
      "**/test-artifacts/**",
    ],
  },
  // Scratch folders the README test writes the README's snippets into.
  { ignores: ["tools/docs/.readme-run-*/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: "module",
      globals: {
        process: "readonly",
        console: "readonly",
        Buffer: "readonly",
        URL: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
        setImmediate: "readonly",
        performance: "readonly",
        AbortController: "readonly",
        AbortSignal: "readonly",
        fetch: "readonly",
        TextEncoder: "readonly",
        TextDecoder: "readonly",
        structuredClone: "readonly",
        queueMicrotask: "readonly",
        Blob: "readonly",
      },
    },
    rules: {
      "no-process-env": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports", disallowTypeAnnotations: false }],
      eqeqeq: ["error", "always", { null: "ignore" }],
    },
  },
  {
    // Entry points, tests, benchmarks and dev tools read the environment; nothing else does.
    files: ["services/*/src/main.ts", "**/test/**", "**/*.test.ts", "bench/**", "tools/**", "packages/testkit/**", "vitest.config.ts", "eslint.config.js"],
    rules: { "no-process-env": "off" },
  },
  {
    // The web UI runs in a browser: its globals are the DOM's, which TypeScript checks (services/web/tsconfig.json).
    files: ["services/web/src/**"],
    rules: { "no-undef": "off" },
  },
  {
    // Tests read loosely typed JSON bodies.
    files: ["**/test/**", "**/*.test.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
);
