export * from "./authenticator.ts";
