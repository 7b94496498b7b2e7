/**
 * Labelled multi-agent text logs, read into one shape whatever their source:
 * - AEGIS-style records: `question`, `trajectory: [{step, agent_name, content}]`,
 *   `faulty_agents: [{agent_name, error_type}]` (agent labels only, no step);
 * - group-chat records with a `history` of `{name?, role, content}` turns
 *   (the speaker is `name`, else `role`), labelled by `mistake_agent` and
 *   `mistake_step` (0-based index into `history`), as Who&When-style logs are.
 * Either may add `id`, `subset` and, per turn, `error: true` (the turn is
 * recorded as failed). Records that fit neither shape are rejected with the
 * line number and what is missing.
 */

export interface Turn {
  agent: string;
  /** The turn's declared role, when the log has one ("assistant", "user", "tool"). */
  role: string | null;
  content: string;
  /** The log records this turn as failed. */
  error: boolean;
}

export interface LabelledLog {
  /** Unique within its set. */
  id: string;
  subset: string;
  goal: string;
  turns: Turn[];
  /** Speakers labelled decisive (faulty), spelled as they speak in `turns`. */
  labelAgents: string[];
  /** Turn index (0-based) of the decisive step; null when the data labels no step. */
  labelStep: number | null;
  /** Labelled agents that match no speaker of the log. */
  unmatchedLabels: string[];
}

export class LogFormatError extends Error {}

type Json = Record<string, unknown>;

const str = (v: unknown): string | null => (typeof v === "string" ? v : typeof v === "number" ? String(v) : null);

/** Parses one JSON Lines file; `source` names it in errors. */
export function parseLogs(text: string, source: string): LabelledLog[] {
  const logs: LabelledLog[] = [];
  const ids = new Set<string>();
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    const where = `${source}:${i + 1}`;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch (err) {
      throw new LogFormatError(`${where}: not JSON (${(err as Error).message})`);
    }
    if (typeof record !== "object" || record === null || Array.isArray(record)) throw new LogFormatError(`${where}: expected a JSON object`);
    const log = readRecord(record as Json, where, logs.length);
    if (ids.has(log.id)) throw new LogFormatError(`${where}: duplicate id ${log.id}`);
    ids.add(log.id);
    logs.push(log);
  });
  return logs;
}

function readRecord(r: Json, where: string, position: number): LabelledLog {
  const id = str(r.id) ?? str(r.source_record) ?? str(r.question_ID) ?? String(position + 1);
  const subset = str(r.subset) ?? "all";
  if (Array.isArray(r.trajectory)) {
    const turns = r.trajectory.map((t, i) => readTurn(t, `${where} trajectory[${i}]`, "agent_name"));
    const labels = Array.isArray(r.faulty_agents) ? r.faulty_agents.map((f) => str((f as Json | null)?.agent_name)).filter((n): n is string => n !== null) : [];
    if (labels.length === 0) throw new LogFormatError(`${where}: faulty_agents lists no agent_name`);
    return finish({ id, subset, goal: str(r.question) ?? "", turns, labels, step: null }, where);
  }
  if (Array.isArray(r.history)) {
    const turns = r.history.map((t, i) => readTurn(t, `${where} history[${i}]`, "name"));
    const agent = str(r.mistake_agent);
    if (agent === null) throw new LogFormatError(`${where}: mistake_agent is missing`);
    const step = r.mistake_step === undefined || r.mistake_step === null ? null : Number(r.mistake_step);
    if (step !== null && (!Number.isInteger(step) || step < 0 || step >= turns.length)) {
      throw new LogFormatError(`${where}: mistake_step ${String(r.mistake_step)} is not a turn index (0 to ${turns.length - 1})`);
    }
    return finish({ id, subset, goal: str(r.question) ?? "", turns, labels: [agent], step }, where);
  }
  throw new LogFormatError(`${where}: expected a "trajectory" (with "faulty_agents") or a "history" (with "mistake_agent")`);
}

function readTurn(t: unknown, where: string, nameField: string): Turn {
  const o = (typeof t === "object" && t !== null ? t : {}) as Json;
  const role = str(o.role);
  const agent = str(o[nameField]) ?? role;
  const content = str(o.content);
  if (agent === null || agent.trim() === "") throw new LogFormatError(`${where}: no speaker (${nameField} or role)`);
  if (content === null) throw new LogFormatError(`${where}: no content`);
  return { agent: agent.trim(), role, content: contentParts(content) ?? content, error: o.error === true };
}

/**
 * Some logs store a turn as its list of content parts printed by Python ("[{'type': 'text', 'text': '...'}]"):
 * the turn is the text of those parts, joined. Null when the content is not such a list.
 */
export function contentParts(content: string): string | null {
  if (!/^\[\{\s*['"]type['"]\s*:\s*['"]text['"]/.test(content)) return null;
  const texts: string[] = [];
  // A Python string literal, single- or double-quoted, with its backslash escapes.
  for (const m of content.matchAll(/['"]text['"]\s*:\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")/gs)) texts.push(unescapePython(m[1] ?? m[2] ?? ""));
  return texts.length === 0 ? null : texts.join("\n");
}

const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"' };
function unescapePython(s: string): string {
  return s.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)/gs, (whole, e: string) =>
    e.length > 1 ? String.fromCharCode(parseInt(e.slice(1), 16)) : (ESCAPES[e] ?? whole),
  );
}

/**
 * Labels are matched to speakers ignoring case, then ignoring a trailing index
 * ("mathematician2" names the only speaker "Mathematician"); the rest are
 * reported unmatched.
 */
function finish(d: { id: string; subset: string; goal: string; turns: Turn[]; labels: string[]; step: number | null }, where: string): LabelledLog {
  if (d.turns.length === 0) throw new LogFormatError(`${where}: the log has no turn`);
  const speakers = [...new Set(d.turns.map((t) => t.agent))];
  const matched = new Set<string>();
  const unmatched: string[] = [];
  for (const label of d.labels) {
    const exact = speakers.find((s) => s.toLowerCase() === label.toLowerCase());
    const stem = (s: string) => s.toLowerCase().replace(/[\s_-]*\d+$/, "");
    const loose = speakers.filter((s) => stem(s) === stem(label));
    const hit = exact ?? (loose.length === 1 ? loose[0] : undefined);
    if (hit === undefined) unmatched.push(label);
    else matched.add(hit);
  }
  return { id: d.id, subset: d.subset, goal: d.goal, turns: d.turns, labelAgents: [...matched], labelStep: d.step, unmatchedLabels: unmatched };
}

/** The log's speakers without their trailing indices ("Assistant1", "Assistant2" → "Assistant"), sorted: a subset by team shape. */
export function rosterSubset(log: LabelledLog): string {
  return [...new Set(log.turns.map((t) => t.agent.replace(/[\s_-]*\d+$/, "").replace(/^[\s_-]+|[\s_-]+$/g, "") || t.agent))].sort().join("+");
}
