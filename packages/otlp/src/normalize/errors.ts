/**
 * Error fields (docs/conventions.md §4.2 "Error"): a span is an error when its
 * status code is ERROR (2), or, unless its status is explicitly OK, when it
 * carries `error.type` or an `exception` event. errorType is read from
 * error.type → exception.type → status.message.
 *
 * Langfuse records a failure as `langfuse.observation.level = ERROR` (its
 * `observe()` wrapper never sets the OTel status): unless the status is OK,
 * that level is an error too, typed by `langfuse.observation.status_message`.
 *
 * Control flow is not failure. LangGraph/LangChain handoff tools return
 * Command(goto=..., graph=Command.PARENT), which LangGraph raises as a
 * ParentCommand (a GraphBubbleUp subclass) to jump to the parent graph;
 * interrupts raise GraphInterrupt / NodeInterrupt. Tracers record these as
 * exceptions with status ERROR on the transfer_to_* tool or node span, yet the
 * run proceeded as designed. When the recorded error names one of these
 * signals (in its type or message), the span is not an error: isError=false,
 * errorType=null.
 */
import type { DecodedSpan } from "@crux/core";
import { ERROR_TYPE, EXCEPTION_EVENT, EXCEPTION_MESSAGE, EXCEPTION_TYPE, LANGFUSE } from "../semconv.ts";
import { str } from "./attrs.ts";

export interface ErrorFields {
  isError: boolean;
  errorType: string | null;
}

const NO_ERROR: ErrorFields = { isError: false, errorType: null };
const LANGFUSE_ERROR_LEVEL = "ERROR";
const CONTROL_FLOW = /\b(?:ParentCommand|GraphBubbleUp|GraphInterrupt|NodeInterrupt)\b|\bCommand\([^)]*\bgoto=/;
/** errorType is a short label; status messages can be whole stack traces. */
const MAX_ERROR_TYPE_LENGTH = 200;

export function readError(span: DecodedSpan): ErrorFields {
  const code = span.status.code;
  if (code === 1) return NO_ERROR;
  const attrType = str(span.attributes, ERROR_TYPE);
  let exceptionType: string | null = null;
  let exceptionMessage: string | null = null;
  for (const event of span.events) {
    if (event.name !== EXCEPTION_EVENT) continue;
    exceptionType = str(event.attributes, EXCEPTION_TYPE);
    exceptionMessage = str(event.attributes, EXCEPTION_MESSAGE);
    break;
  }
  const hasException = exceptionType !== null || exceptionMessage !== null;
  const langfuseError = str(span.attributes, LANGFUSE.level) === LANGFUSE_ERROR_LEVEL;
  if (code !== 2 && attrType === null && !hasException && !langfuseError) return NO_ERROR;

  const statusMessage = span.status.message === "" ? null : span.status.message;
  const langfuseMessage = langfuseError ? str(span.attributes, LANGFUSE.statusMessage) : null;
  if (
    isControlFlow(attrType) ||
    isControlFlow(exceptionType) ||
    isControlFlow(exceptionMessage) ||
    isControlFlow(statusMessage) ||
    isControlFlow(langfuseMessage)
  ) {
    return NO_ERROR;
  }
  const errorType = attrType ?? exceptionType ?? statusMessage ?? langfuseMessage ?? exceptionMessage ?? "error";
  return { isError: true, errorType: errorType.slice(0, MAX_ERROR_TYPE_LENGTH) };
}

function isControlFlow(text: string | null): boolean {
  return text !== null && CONTROL_FLOW.test(text);
}
