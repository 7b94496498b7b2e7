/**
 * A Slack incoming-webhook body (`text` as the notification fallback, `blocks`
 * for the message) from any event. Pure.
 */
export type WebhookEvent = { id: string; type: string; [field: string]: unknown };

type TextObject = { type: "mrkdwn" | "plain_text"; text: string };
export type SlackBlock =
  | { type: "header"; text: TextObject & { type: "plain_text" } }
  | { type: "section"; text?: TextObject; fields?: TextObject[] }
  | { type: "context"; elements: TextObject[] };
export type SlackBody = { text: string; blocks: SlackBlock[] };

/** Slack allows at most 10 fields per section and 2000 characters per field. */
const MAX_FIELDS = 10;
const MAX_FIELD_CHARS = 2000;
const MAX_HEADER_CHARS = 150;

/** Slack's mrkdwn treats &, < and > as markup; everything else is literal. */
function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function show(value: unknown): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  return text.length > MAX_FIELD_CHARS - 100 ? `${text.slice(0, MAX_FIELD_CHARS - 101)}…` : text;
}

export function slackBody(event: WebhookEvent): SlackBody {
  const { id, type, ...rest } = event;
  const entries = Object.entries(rest).filter(([, value]) => value !== undefined);
  const fields = entries
    .slice(0, MAX_FIELDS)
    .map(([name, value]): TextObject => ({ type: "mrkdwn", text: `*${escapeMrkdwn(name)}*\n${escapeMrkdwn(show(value))}` }));
  const blocks: SlackBlock[] = [{ type: "header", text: { type: "plain_text", text: `Crux: ${type}`.slice(0, MAX_HEADER_CHARS) } }];
  if (fields.length > 0) blocks.push({ type: "section", fields });
  const omitted = entries.length - fields.length;
  const context = `event ${id}${omitted > 0 ? ` · ${omitted} more field${omitted === 1 ? "" : "s"} omitted` : ""}`;
  blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: escapeMrkdwn(context) }] });
  const summary = entries.map(([name, value]) => `${name}: ${show(value)}`).join(", ");
  return { text: escapeMrkdwn(`Crux: ${type}${summary === "" ? "" : ` (${summary})`}`), blocks };
}
