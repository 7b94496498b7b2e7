/**
 * Picks the scenarios named in GOLDEN_FRAMEWORKS (a comma-separated list), so
 * re-recording one framework does not rewrite the other frameworks' exports.
 */

/** The scenarios whose framework is in `list` (all of them when `list` is absent or blank), in their original order. */
export function selectScenarios<T extends { framework: string }>(all: readonly T[], list: string | undefined): T[] {
  const wanted = (list ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  if (wanted.length === 0) return [...all];
  const known = all.map((s) => s.framework);
  const unknown = wanted.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new Error(`GOLDEN_FRAMEWORKS names unknown framework(s) ${unknown.join(", ")}; known: ${known.join(", ")}`);
  }
  return all.filter((s) => wanted.includes(s.framework));
}
