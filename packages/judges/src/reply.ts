/**
 * A judge's reply: one JSON object, validated with the judge's zod schema.
 * Tolerates what models commonly wrap JSON in (code fences, a sentence
 * before or after); anything else is an invalid reply, with a message
 * precise enough to send back to the model as the reason for a retry.
 */
import { z } from "zod";

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

function extractJson(text: string): Parsed<unknown> {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const body = fenced ? fenced[1]! : text;
  const start = body.indexOf("{");
  const end = body.lastIndexOf("}");
  if (start < 0 || end <= start) return { ok: false, error: `the reply holds no JSON object (it starts ${JSON.stringify(text.slice(0, 80))})` };
  try {
    return { ok: true, value: JSON.parse(body.slice(start, end + 1)) };
  } catch (err) {
    return { ok: false, error: `the reply is not valid JSON: ${(err as Error).message}` };
  }
}

export function parseReply<T>(text: string, schema: z.ZodType<T>, stopReason: string | null): Parsed<T> {
  const json = extractJson(text);
  if (!json.ok) return { ok: false, error: stopReason === "max_tokens" ? `the reply was cut at the output token limit; ${json.error}` : json.error };
  const checked = schema.safeParse(json.value);
  if (!checked.success)
    return { ok: false, error: `the reply does not match the expected shape: ${z.prettifyError(checked.error).replace(/\s+/g, " ").slice(0, 600)}` };
  return { ok: true, value: checked.data };
}
