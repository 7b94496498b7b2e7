// drizzle-kit config. Run from packages/db (paths are relative to it):
//   npx drizzle-kit generate --config drizzle.config.ts
import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "postgresql",
  schema: "./src/schema/index.ts",
  out: "../../migrations",
  casing: "snake_case",
});
