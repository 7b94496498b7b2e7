/**
 * The runs list scrolled in a real browser (Debian's Chromium) against `pnpm start` holding 300
 * runs: its rows are reused as it scrolls (the elements in the window stay the same elements, each
 * rewritten with the run now at its place), every run is reached through the keyset pages fetched
 * as it scrolls, and each row shows the run the API serves at that position. By keyboard the table
 * is one tab stop, and the arrows and Page Up/Down move the focus from row to row in list order.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findChromium, launchBrowser } from "./browser.ts";
import { apiGet, eventually, orphanRuns, postOtlpJson, removeDir, startService, tempDataDir, type RunningService } from "./support.ts";

const executablePath = findChromium();
const RUNS = 300;

// Scripts run in the page are text: the tests are typed without the DOM's types.
/** Index and trace id of each row in the window, in index order. */
const rowsInWindow = (page: Page) =>
  page.evaluate(
    `[...document.querySelectorAll("[role=row][data-index]")]
      .map((r) => ({ index: Number(r.dataset.index), traceId: r.dataset.traceId }))
      .sort((a, b) => a.index - b.index)`,
  ) as Promise<{ index: number; traceId: string }[]>;
/** Scrolls 20 rows (two steps of 400 px, a frame each); returns the last row then in view (40 px rows). */
const scrollTwentyRows = `(async () => {
  const el = document.querySelector("[data-testid=runs-scroll]");
  for (let i = 0; i < 2; i++) {
    el.scrollTop += 400;
    await new Promise((r) => requestAnimationFrame(() => r(null)));
  }
  return Math.floor((el.scrollTop + el.clientHeight) / 40);
})()`;
const keepRowElements = `window.rowsBefore = [...document.querySelectorAll("[role=row][data-index]")]; null`;
/**
 * How many row elements the window has, how many of them were not there when keepRowElements ran,
 * and how many of those that were have another place among their siblings (a DOM move).
 */
const rowElementsBuilt = `(() => {
  const previous = new Set(window.rowsBefore);
  const now = [...document.querySelectorAll("[role=row][data-index]")];
  return {
    now: now.length,
    built: now.filter((r) => !previous.has(r)).length,
    moved: now.filter((r, i) => previous.has(r) && window.rowsBefore.indexOf(r) !== i).length,
  };
})()`;
/** The list index of the row holding the focused element (null outside the rows), and the indexes of the rows whose link is a tab stop. */
const focusState = `(() => {
  const row = document.activeElement && document.activeElement.closest("[role=row][data-index]");
  return {
    focused: row ? Number(row.dataset.index) : null,
    tabStops: [...document.querySelectorAll('[role=row][data-index] a[tabindex="0"]')].map((a) => Number(a.closest("[role=row]").dataset.index)),
    firstInView: Math.floor(document.querySelector("[data-testid=runs-scroll]").scrollTop / 40),
  };
})()`;

describe.skipIf(!executablePath)("the runs list scrolled in Chromium", () => {
  let service: RunningService;
  let dataDir: string;
  let browser: Browser;
  let page: Page;
  let expected: string[];

  beforeAll(async () => {
    dataDir = tempDataDir();
    service = await startService(dataDir, { CRUX_AUTH: "false", CRUX_SETTLE_DELAY_MS: "600000", CRUX_SWEEP_QUIET_MS: "600000" });
    await postOtlpJson(service.otlpUrl, orphanRuns(RUNS, Date.now() - 60_000, "scroll-list"));
    // The API's order, read the way the page reads it: keyset pages, newest first.
    expected = [];
    let cursor: string | null = null;
    do {
      const page: { items: { traceId: string }[]; nextCursor: string | null } = await apiGet(
        service.apiUrl,
        `/traces?service=scroll-list&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      expected.push(...page.items.map((i) => i.traceId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(expected).toHaveLength(RUNS);
    ({ browser, page } = await launchBrowser(executablePath!));
    await page.setViewportSize({ width: 1600, height: 1000 });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    if (dataDir) removeDir(dataDir);
  }, 60_000);

  it("reuses its rows as it scrolls: the same elements, each showing the run now at its place", async () => {
    await page.goto(`${service.uiUrl}runs?service=scroll-list`);
    await page.locator("[role=row][data-trace-id]").first().waitFor();
    expect((await rowsInWindow(page))[0]).toEqual({ index: 0, traceId: expected[0] });
    // 20 rows down, 10 rows (400 px) a frame, as a person scrolls fast.
    const scroll20Rows = async () => {
      // The window must reach the last row in view once scrolled.
      const lastInView = (await page.evaluate(scrollTwentyRows)) as number;
      await expect.poll(async () => (await rowsInWindow(page)).at(-1)!.index, { timeout: 15_000 }).toBeGreaterThanOrEqual(lastInView);
    };
    // Off the top first: there the window lacks the rows kept above the view.
    await scroll20Rows();
    await page.evaluate(keepRowElements);
    await scroll20Rows();

    const after = await rowsInWindow(page);
    for (const row of after) expect(row.traceId, `row ${row.index}`).toBe(expected[row.index]);
    // Every row element in the window was there before the scroll: none was built for the 20 runs
    // that came into it (keyed by a slot that was not the leaving row's, 20 were).
    const rows = (await page.evaluate(rowElementsBuilt)) as { now: number; built: number; moved: number };
    expect(rows.now).toBeGreaterThan(40);
    expect(rows.built).toBe(0);
    // Nor was any moved: the rows are children in slot order, which scrolling does not change.
    expect(rows.moved).toBe(0);
  });

  it("is one tab stop that follows the rows in view; arrows, Page Up/Down, Home and End move the focus in list order", async () => {
    await page.goto(`${service.uiUrl}runs?service=scroll-list`);
    await page.locator("[role=row][data-trace-id]").first().waitFor();
    await page.evaluate(`document.querySelector("[data-testid=runs-scroll]").scrollTop = 40 * 35`);
    type FocusState = { focused: number | null; tabStops: number[]; firstInView: number };
    await expect.poll(async () => ((await page.evaluate(focusState)) as FocusState).tabStops).toEqual([35]);
    await page.locator('[role=row][data-index] a[tabindex="0"]').focus();
    for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowDown");
    await expect.poll(async () => ((await page.evaluate(focusState)) as FocusState).focused).toBe(38);
    await page.keyboard.press("PageDown");
    await expect.poll(async () => ((await page.evaluate(focusState)) as FocusState).focused).toBe(48);
    expect(((await page.evaluate(focusState)) as FocusState).tabStops).toEqual([48]);
    await expect.poll(() => page.evaluate("document.activeElement.closest('[role=row]').dataset.traceId")).toBe(expected[48]);
    // Tab leaves the table; Shift+Tab comes back to the row last focused.
    await page.keyboard.press("Tab");
    expect(((await page.evaluate(focusState)) as FocusState).focused).toBeNull();
    await page.keyboard.press("Shift+Tab");
    expect(((await page.evaluate(focusState)) as FocusState).focused).toBe(48);
    // Home goes to the first run, End to the last one loaded.
    await page.keyboard.press("Home");
    await expect.poll(async () => ((await page.evaluate(focusState)) as FocusState).focused).toBe(0);
    await page.keyboard.press("End");
    await expect.poll(async () => ((await page.evaluate(focusState)) as FocusState).focused).toBeGreaterThanOrEqual(99);
    for (let i = 0; i < 5; i++) await page.keyboard.press("ArrowUp");
    await page.keyboard.press("PageUp");
    const up = ((await page.evaluate(focusState)) as FocusState).focused!;
    expect(up).toBeGreaterThanOrEqual(84);
    expect(await page.evaluate("document.activeElement.closest('[role=row]').dataset.traceId")).toBe(expected[up]);
    // Enter opens the focused row's run.
    await page.keyboard.press("Enter");
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/runs/${expected[up]}`);
  });

  it("clips only the cells whose content might not fit their column; no other cell spills over", async () => {
    const longName = "a-service-whose-name-is-far-too-long-for-its-column";
    await postOtlpJson(service.otlpUrl, orphanRuns(2, Date.now() - 30_000, longName));
    // Each cell in the window: its column (by position in the row), whether it is clipped, whether its content is wider than it.
    const cells = `[...document.querySelectorAll("[role=row][data-index] [role=cell]")].map((c) => ({
      column: [...c.parentElement.children].indexOf(c), clipped: c.classList.contains("clip"), spills: c.scrollWidth > c.clientWidth }))`;
    type Cell = { column: number; clipped: boolean; spills: boolean };
    const TIME = 0;
    const SERVICE = 1;
    const shown = async (serviceName: string) => {
      await page.goto(`${service.uiUrl}runs?service=${serviceName}`);
      await page.locator("[role=row][data-trace-id]").first().waitFor();
      return (await page.evaluate(cells)) as Cell[];
    };
    const short = await shown("scroll-list");
    expect(short.length).toBeGreaterThan(200);
    expect(short.filter((c) => !c.clipped && c.spills)).toEqual([]);
    expect(short.filter((c) => c.column === SERVICE).every((c) => !c.clipped)).toBe(true);
    // The start time is shown whole (its column fits the browser's date format, seconds included).
    expect(short.filter((c) => c.column === TIME && c.spills)).toEqual([]);
    const long = await shown(longName);
    expect(long).toHaveLength(20);
    expect(long.filter((c) => !c.clipped && c.spills)).toEqual([]);
    expect(long.filter((c) => c.column === SERVICE)).toEqual([
      { column: SERVICE, clipped: true, spills: true },
      { column: SERVICE, clipped: true, spills: true },
    ]);
  });

  it("reaches every run through the pages it fetches as it scrolls, each row the API's run at that place", async () => {
    await page.goto(`${service.uiUrl}runs?service=scroll-list`);
    await page.locator("[role=row][data-trace-id]").first().waitFor();
    const seen = new Map<number, string>();
    await eventually(async () => {
      for (const row of await rowsInWindow(page)) seen.set(row.index, row.traceId);
      if (seen.has(RUNS - 1)) return true;
      await page.evaluate(`document.querySelector("[data-testid=runs-scroll]").scrollTop += 800`);
      await page.waitForTimeout(30);
      return undefined;
    }, 60_000);
    expect(seen.size).toBe(RUNS);
    expect([...seen.entries()].sort((a, b) => a[0] - b[0]).map(([, traceId]) => traceId)).toEqual(expected);
  });
});
