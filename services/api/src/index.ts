export { buildApiApp, type ApiDeps } from "./app.ts";
export { apiConfigSchema, type ApiConfig } from "./config.ts";
