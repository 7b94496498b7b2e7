export { wordTokens, contentWords, sharedContentWords, normalizeText, estimateTokens } from "./text.ts";
export * from "./step-signature.ts";
export * from "./tfidf-embedder.ts";
