/**
 * Id formats of traces and spans (W3C trace context / OTLP, as hex). The
 * request schemas validate them; response fields carry them as described
 * strings (what the receiver stored, which it validated on ingest).
 */
import { z } from "zod";

/** 32 hex characters (16 bytes); accepted in either case, served lowercase. */
export const TraceId = z
  .string()
  .regex(/^[0-9a-fA-F]{32}$/, "must be 32 hex characters")
  .transform((s) => s.toLowerCase());

/** 16 hex characters (8 bytes); accepted in either case, served lowercase. */
export const SpanId = z
  .string()
  .regex(/^[0-9a-fA-F]{16}$/, "must be 16 hex characters")
  .transform((s) => s.toLowerCase());

/** Id of a stored configuration row. */
export const ConfigId = z.uuid();

/** A trace id in a response. */
export const traceIdField = () => z.string().describe("Trace id: 32 lowercase hex characters");
/** A span id in a response. */
export const spanIdField = () => z.string().describe("Span id: 16 lowercase hex characters");
