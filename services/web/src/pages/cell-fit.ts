/**
 * Whether a runs-table cell's content surely fits its column, so that the cell needs no clip.
 *
 * A clipped cell (`overflow: hidden`, for its ellipsis) is a clip of its own in the browser's paint:
 * with ten per row, a scrolled frame recorded and layerized twice the paint it does with the few cells
 * whose text is too long for the column. So a cell is clipped only when its text, measured in the
 * row's font, could be wider than the column's narrowest width; the row itself still clips as a whole.
 * Where text cannot be measured (no canvas), every cell is clipped.
 */

/** A badge's horizontal padding, border and margin around its text (see `.badge` in styles.css). */
const BADGE_CHROME_PX = 6 * 2 + 2 + 3;
/** Slack for the canvas's and the layout's rounding of text widths. */
const SLACK_PX = 2;
const MAX_CACHED = 4_096;

let context: CanvasRenderingContext2D | null | undefined;
const fonts = { text: "", badge: "" };
// Setting the context's font parses it: set it only when it changes.
let currentFont = "";
let widestDigit = "0";
const DIGITS = /[0-9]/g;
const widths = new Map<string, number>();

function measure(text: string, font: "text" | "badge"): number | null {
  if (context === undefined) {
    context = typeof document === "undefined" ? null : document.createElement("canvas").getContext("2d");
    if (context) {
      // The row's own font, as the page resolved it; badges are the same family at 11px.
      const style = getComputedStyle(document.body);
      fonts.text = `${style.fontSize} ${style.fontFamily}`;
      fonts.badge = `11px ${style.fontFamily}`;
      // Digits are measured as the family's widest digit: an upper bound, and every time, count and
      // price of one format then shares one measurement (measuring each row's own text cost more
      // than the clips it saved).
      const ctx = context;
      ctx.font = currentFont = fonts.text;
      widestDigit = [..."0123456789"].reduce((a, b) => (ctx.measureText(b).width > ctx.measureText(a).width ? b : a));
    }
  }
  if (!context) return null;
  const shape = text.replace(DIGITS, widestDigit);
  const key = `${font}\u0000${shape}`;
  let width = widths.get(key);
  if (width === undefined) {
    if (currentFont !== fonts[font]) {
      context.font = currentFont = fonts[font];
    }
    width = context.measureText(shape).width;
    if (widths.size >= MAX_CACHED) widths.clear();
    widths.set(key, width);
  }
  return width;
}

/** True when `text` in the row's font is surely no wider than `widthPx`. */
export function textFits(text: string, widthPx: number): boolean {
  const w = measure(text, "text");
  return w !== null && w + SLACK_PX <= widthPx;
}

/** True when the badges (and an optional trailing text) side by side surely fit in `widthPx`. */
export function badgesFit(badges: readonly string[], widthPx: number, trailingText = ""): boolean {
  let total = SLACK_PX;
  for (const b of badges) {
    const w = measure(b, "badge");
    if (w === null) return false;
    total += w + BADGE_CHROME_PX;
  }
  if (trailingText) {
    const w = measure(trailingText, "text");
    if (w === null) return false;
    total += w;
  }
  return total <= widthPx;
}
