export { buildApiApp, type ApiDeps } from "./app.ts";
export { apiConfigSchema, validationBarOf, type ApiConfig } from "./config.ts";
