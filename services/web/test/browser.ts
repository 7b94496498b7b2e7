/**
 * Shared browser-test steps: Debian's Chromium found (or the one line on how to install it),
 * launched with a page, the page signed in; a screenshot of the page and axe-core on it (no
 * serious or critical violation).
 */
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { expect } from "vitest";
import { chromiumPath, noChromiumLine, repoRoot } from "./support.ts";

export const artifacts = path.join(repoRoot, "services/web/test-artifacts");
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** Chromium's path, or null after saying how to install it: the browser tests then skip. */
export function findChromium(): string | null {
  const executablePath = chromiumPath();
  if (!executablePath) console.log(noChromiumLine);
  return executablePath;
}

/** Chromium with one 1600×1000 page; the screenshots' folder made. */
export async function launchBrowser(executablePath: string): Promise<{ browser: Browser; page: Page }> {
  mkdirSync(artifacts, { recursive: true });
  const browser = await chromium.launch({ executablePath, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  return { browser, page };
}

/** Opens the UI and keeps the key in this tab's sessionStorage, where the sign-in form keeps it. */
export async function storeApiKey(page: Page, uiUrl: string, key: string): Promise<void> {
  await page.goto(uiUrl);
  await page.evaluate((k) => (globalThis as any).sessionStorage.setItem("crux.apiKey", k), key);
}

export async function checkPage(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as any).axe;
    const r = await axe.run((globalThis as any).document, { resultTypes: ["violations"] });
    return r.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n: any) => n.target.join(" ")) }));
  });
  const serious = violations.filter((v: any) => v.impact === "serious" || v.impact === "critical");
  expect(serious, `${name}: ${JSON.stringify(serious)}`).toEqual([]);
}
