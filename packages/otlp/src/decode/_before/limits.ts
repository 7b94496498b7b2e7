/**
 * Per-span caps the decoder enforces so one hostile or buggy span cannot bloat
 * storage. Keys in span.limitsApplied.truncatedKeys are the attribute key for
 * span attributes, and "event[i].key", "link[i].key", "resource.key",
 * "scope.key" for the others.
 */
export interface DecodeLimits {
  /** Distinct attribute keys kept per span (also per event, link, resource and scope); extra ones are dropped and counted in limitsApplied.droppedAttributes. */
  maxAttributesPerSpan: number;
  /** String values longer than this many UTF-16 code units are truncated (key recorded in limitsApplied.truncatedKeys). */
  maxAttributeValueLength: number;
  /** array/kvlist nesting deeper than this is replaced by a marker string (key recorded as truncated). */
  maxValueDepth: number;
  /** Events kept per span; extra ones are added to droppedEventsCount. */
  maxEventsPerSpan: number;
  /** Links kept per span; extra ones are added to droppedLinksCount. */
  maxLinksPerSpan: number;
  /** Clock-skew tolerance: a span whose end is earlier than its start by more than this is rejected. */
  maxEndBeforeStartNs: bigint;
}

export const defaultDecodeLimits: DecodeLimits = Object.freeze({
  maxAttributesPerSpan: 1024,
  maxAttributeValueLength: 32_768,
  maxValueDepth: 8,
  maxEventsPerSpan: 256,
  maxLinksPerSpan: 128,
  maxEndBeforeStartNs: 1_000_000_000n,
});

export function depthMarker(maxValueDepth: number): string {
  return `[crux: nesting deeper than ${maxValueDepth} removed]`;
}
