/**
 * The MAST vocabulary (docs/failure-modes.md §1): the 14 failure modes and their three
 * categories, declared here once. Everything else imports them, the API's contracts through
 * @crux/core/vocabulary.
 */

/** The 14 modes of the taxonomy (docs/failure-modes.md §1), in order. */
export const mastModeIds = [
  "FM-1.1",
  "FM-1.2",
  "FM-1.3",
  "FM-1.4",
  "FM-1.5",
  "FM-2.1",
  "FM-2.2",
  "FM-2.3",
  "FM-2.4",
  "FM-2.5",
  "FM-2.6",
  "FM-3.1",
  "FM-3.2",
  "FM-3.3",
] as const;

export type MastModeId = (typeof mastModeIds)[number];

export const mastCategories = ["FC1", "FC2", "FC3"] as const;

export type MastCategory = (typeof mastCategories)[number];

export function categoryOf(mode: MastModeId): MastCategory {
  if (mode.startsWith("FM-1.")) return "FC1";
  if (mode.startsWith("FM-2.")) return "FC2";
  return "FC3";
}
