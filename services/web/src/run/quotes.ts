/**
 * The quotes that cite a step: each finding or judge verdict finding with a step index and a
 * quote (its evidence, verbatim from that step), and where they occur in a step's text. Pure.
 */
export interface Citation {
  stepIndex: number | null;
  evidence: string;
}

/** Verdict results are typed `unknown` on the wire: only well-formed findings are read. */
export function verdictCitations(results: unknown[]): Citation[] {
  const out: Citation[] = [];
  for (const r of results) {
    const findings = (r as { findings?: unknown } | null)?.findings;
    if (!Array.isArray(findings)) continue;
    for (const f of findings as { stepIndex?: unknown; evidence?: unknown }[]) {
      if (typeof f?.stepIndex === "number" && typeof f.evidence === "string") out.push({ stepIndex: f.stepIndex, evidence: f.evidence });
    }
  }
  return out;
}

export function quotesByStep(citations: Citation[]): Map<number, string[]> {
  const m = new Map<number, string[]>();
  for (const c of citations) {
    const q = c.evidence.trim();
    if (c.stepIndex === null || q === "") continue;
    const list = m.get(c.stepIndex) ?? [];
    if (!list.includes(q)) list.push(q);
    m.set(c.stepIndex, list);
  }
  return m;
}

/** The text cut into plain and quoted parts: every occurrence of every quote, overlaps merged. */
export function splitQuotes(text: string, quotes: string[]): { text: string; quoted: boolean }[] {
  const ranges: [number, number][] = [];
  for (const q of quotes) {
    if (q === "") continue;
    for (let at = text.indexOf(q); at !== -1; at = text.indexOf(q, at + q.length)) ranges.push([at, at + q.length]);
  }
  if (ranges.length === 0) return [{ text, quoted: false }];
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  const parts: { text: string; quoted: boolean }[] = [];
  let pos = 0;
  for (const [a, b] of merged) {
    if (a > pos) parts.push({ text: text.slice(pos, a), quoted: false });
    parts.push({ text: text.slice(a, b), quoted: true });
    pos = b;
  }
  if (pos < text.length) parts.push({ text: text.slice(pos), quoted: false });
  return parts;
}
