/** Shared browser-test steps: a screenshot of the page and axe-core on it (no serious or critical violation). */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { Page } from "playwright-core";
import { expect } from "vitest";
import { repoRoot } from "./support.ts";

export const artifacts = path.join(repoRoot, "services/web/test-artifacts");
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

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
