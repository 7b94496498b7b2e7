/** A part over its whole; null when the whole is 0 (no share, rather than 0 or NaN). */
export function ratioOrNull(numerator: number, denominator: number): number | null {
  return denominator === 0 ? null : numerator / denominator;
}
