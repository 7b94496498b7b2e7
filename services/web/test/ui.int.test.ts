/**
 * The web UI in a real browser (Debian's Chromium driven by playwright-core; no browser download)
 * against the real service started as the README starts it (`pnpm start`, auth on, a temporary
 * data folder), seeded with the golden traces through its OTLP receiver. Checks that each page
 * shows the numbers the API serves for the same run, that selecting the attribution selects its
 * span in the graph, timeline, tree and transcript, that labelling from the UI changes
 * /validation, that a rule and a webhook can be created, the sign-in with a wrong and a right key,
 * and axe-core on every page (no serious or critical violation). A screenshot of each page is
 * saved under services/web/test-artifacts/ (gitignored).
 */
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatCost, formatTokens } from "../src/format.ts";
import { artifacts, checkPage as checkAxe, findChromium, launchBrowser, storeApiKey } from "./browser.ts";
import { apiGet, createKey, eventually, goldenExports, postOtlpJson, removeDir, startService, tempDataDir, type RunningService } from "./support.ts";

const executablePath = findChromium();

describe.skipIf(!executablePath)("web UI in Chromium against the running service", () => {
  let service: RunningService;
  let dataDir: string;
  let key: string;
  let browser: Browser;
  let page: Page;
  const goldens = goldenExports();
  const failedRun = goldens.find((g) => g.name.startsWith("openai-agents"))!;

  beforeAll(async () => {
    dataDir = tempDataDir();
    key = createKey(dataDir);
    service = await startService(dataDir, { CRUX_AUTH: "true" });
    for (const g of goldens) await postOtlpJson(service.otlpUrl, g.body, key);
    await eventually(async () => {
      const list = await apiGet(service.apiUrl, "/traces?limit=50", key);
      return list.items.length === goldens.length && list.items.every((i: any) => i.scored) ? true : undefined;
    });
    // A failed outcome makes the scorer attribute the run's decisive error.
    const res = await fetch(`${service.apiUrl}/traces/${failedRun.traceId}/outcome`, {
      method: "POST",
      body: JSON.stringify({ success: false }),
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(202);
    await eventually(async () => {
      const a = await apiGet(service.apiUrl, `/traces/${failedRun.traceId}/attribution`, key);
      return a.items.length > 0 ? true : undefined;
    });
    ({ browser, page } = await launchBrowser(executablePath!));
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    if (dataDir) removeDir(dataDir);
  }, 60_000);

  /** This tab keeps the key once signed in (the sign-in itself is the first test). */
  async function signIn() {
    await storeApiKey(page, service.uiUrl, key);
    await page.goto(service.uiUrl);
    await page.getByRole("heading", { name: "Runs" }).waitFor();
  }

  const checkPage = (name: string) => checkAxe(page, name);

  it("refuses a wrong key and signs in with a right one", async () => {
    await page.goto(service.uiUrl);
    await page.getByLabel("API key").fill("crux_wrong_key_0000000000000000");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("not accepted");
    await checkPage("sign-in");
    await page.getByLabel("API key").fill(key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Runs" }).waitFor();
    // Kept for this tab only.
    expect(await page.evaluate(() => (globalThis as any).sessionStorage.getItem("crux.apiKey"))).toBe(key);
    expect(await page.evaluate(() => (globalThis as any).localStorage.getItem("crux.apiKey"))).toBeNull();
  });

  it("lists every run with the tokens, cost, outcome and findings the API serves", async () => {
    await signIn();
    const list = await apiGet(service.apiUrl, "/traces?limit=50", key);
    await page.locator("[role=row][data-trace-id]").first().waitFor();
    for (const item of list.items) {
      const row = page.locator(`[role=row][data-trace-id="${item.traceId}"]`);
      const cells = await row.locator("[role=cell]").allTextContents();
      expect(cells[5], item.traceId).toBe(formatTokens(item.totalTokens));
      expect(cells[6], item.traceId).toBe(formatCost(item.costUsd));
      expect(cells[3]).toContain(item.outcome);
      for (const mode of item.findingModes) expect(cells[8]).toContain(mode);
      expect(cells[9]).toBe(item.attributedAgent ?? "–");
    }
    await checkPage("runs");
    // A server-side filter narrows the list, and the URL keeps it.
    await page.getByLabel("Outcome").selectOption("failed");
    await expect.poll(() => page.url()).toContain("outcome=failed");
    const failed = await apiGet(service.apiUrl, "/traces?limit=50&outcome=failed", key);
    expect(failed.items.map((i: any) => i.traceId)).toContain(failedRun.traceId);
    await expect.poll(() => page.locator("[role=row][data-trace-id]").count()).toBe(failed.items.length);
    const shown = await page.locator("[role=row][data-trace-id]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-trace-id")));
    expect(shown).toEqual(failed.items.map((i: any) => i.traceId));
  });

  it("shows the run's numbers, and selecting the attribution selects its span in all three views", async () => {
    await signIn();
    const [scores, attribution, trajectories] = await Promise.all([
      apiGet(service.apiUrl, `/traces/${failedRun.traceId}/scores`, key),
      apiGet(service.apiUrl, `/traces/${failedRun.traceId}/attribution`, key),
      apiGet(service.apiUrl, `/traces/${failedRun.traceId}/trajectories`, key),
    ]);
    await page.goto(`${service.uiUrl}runs/${failedRun.traceId}`);
    await page.getByTestId("total-tokens").waitFor();
    expect(await page.getByTestId("total-tokens").textContent()).toBe(formatTokens(scores.scores.totals.totalTokens));
    expect(await page.getByTestId("total-cost").textContent()).toBe(formatCost(scores.scores.totals.costUsd));
    expect(await page.getByTestId("header-tokens").textContent()).toBe(formatTokens(scores.scores.totals.totalTokens));
    for (const a of scores.scores.agents) {
      const node = page.locator(`g.node[data-agent="${a.agent}"]`);
      expect(await node.textContent()).toContain(`${formatTokens(a.totalTokens)} tok · ${formatCost(a.costUsd)}`);
      expect(await node.textContent()).toContain(`${a.llmCalls} LLM · ${a.toolCalls} tool · ${a.errors} err`);
    }
    const pick = attribution.methods.find((m: any) => m.pick?.spanId)!.pick;
    expect(await page.locator(`g.node[data-agent="${pick.agent}"]`).getAttribute("class")).toContain("attributed");
    await page.locator(`button[data-attribution-span="${pick.spanId}"]`).click();
    await expect.poll(() => new URL(page.url()).searchParams.get("span")).toBe(pick.spanId);
    await expect.poll(() => page.locator(`.tree-row[data-span-id="${pick.spanId}"]`).getAttribute("aria-selected")).toBe("true");
    expect(await page.locator(`.tl-bar[data-span-id="${pick.spanId}"]`).getAttribute("aria-pressed")).toBe("true");
    expect(await page.locator(`g.node[data-agent="${pick.agent}"]`).getAttribute("aria-pressed")).toBe("true");
    const isStep = trajectories.items.some((t: any) => t.steps.some((s: any) => s.spanId === pick.spanId));
    if (isStep) await expect.poll(() => page.locator(`article.msg[data-span-id="${pick.spanId}"]`).getAttribute("aria-current")).toBe("true");
    await checkPage("run");
    await page.evaluate(() => (globalThis as any).scrollTo(0, 0));
    await page.screenshot({ path: path.join(artifacts, "run-view.png") });
    // The URL alone opens the same run with the same span selected.
    await page.goto(page.url());
    await expect.poll(() => page.locator(`.tree-row[data-span-id="${pick.spanId}"]`).getAttribute("aria-selected")).toBe("true");
    // Keyboard: the tree moves the selection with the arrows, and every view follows.
    await page.locator(".span-tree").focus();
    await page.keyboard.press("ArrowDown");
    await expect.poll(() => new URL(page.url()).searchParams.get("span")).not.toBe(pick.spanId);
    const moved = new URL(page.url()).searchParams.get("span")!;
    expect(await page.locator(`.tl-bar[data-span-id="${moved}"]`).getAttribute("aria-pressed")).toBe("true");
  });

  it("labelling the run from the UI changes /validation", async () => {
    await signIn();
    const before = await apiGet(service.apiUrl, "/validation", key);
    await page.goto(`${service.uiUrl}runs/${failedRun.traceId}`);
    await page.locator('select[data-mode="FM-1.3"]').selectOption("present");
    await page.locator('select[data-mode="FM-2.2"]').selectOption("absent");
    await page.locator("tr[data-agent-row]").first().waitFor();
    await page.locator(".tree-row").nth(2).click();
    await page.getByRole("button", { name: "Use the selected span" }).click();
    await page.getByLabel("Labelled by").fill("ui-test");
    await page.getByRole("button", { name: "Save labels" }).click();
    await page.getByText("Labels saved").waitFor();
    const after = await apiGet(service.apiUrl, "/validation", key);
    expect(after.labelledTraces).toBe(before.labelledTraces + 1);
    const labels = await apiGet(service.apiUrl, `/traces/${failedRun.traceId}/labels`, key);
    expect(labels.labels.modes).toEqual({ "FM-1.3": true, "FM-2.2": false });
    expect(labels.labels.labeller).toBe("ui-test");
    expect(labels.labels.decisive.spanId).toMatch(/^[0-9a-f]{16}$/);
    await page.goto(`${service.uiUrl}judges`);
    await expect.poll(() => page.getByTestId("labelled-traces").textContent()).toContain(`${after.labelledTraces} labelled runs`);
    await checkPage("judges");
  });

  it("creates an alert rule and a webhook", async () => {
    await signIn();
    await page.goto(`${service.uiUrl}alerts`);
    await page.getByLabel("Name").fill("errors over 20%");
    await page.getByRole("button", { name: "Create rule" }).click();
    await page.locator('tr[data-rule="errors over 20%"]').waitFor();
    await page.getByLabel("Webhook URL").fill("https://hooks.example.com/crux");
    await page.getByRole("button", { name: "Add webhook" }).click();
    await page.getByText("shown once").waitFor();
    const rules = await apiGet(service.apiUrl, "/alert-rules", key);
    expect(rules.items.map((r: any) => r.name)).toContain("errors over 20%");
    // Editing: the form takes the rule's values, and saving replaces them (a change condition now).
    await page.getByRole("button", { name: "Edit rule errors over 20%" }).click();
    expect(await page.getByLabel("Name").inputValue()).toBe("errors over 20%");
    await page.getByLabel("Name").fill("errors rising");
    await page.getByLabel("Condition").selectOption("change");
    await page.getByLabel("By (0.5 = 50%)").fill("0.25");
    await page.getByLabel("Window (minutes)").fill("30");
    await page.getByRole("button", { name: "Save rule" }).click();
    await page.locator('tr[data-rule="errors rising"]').waitFor();
    const edited = (await apiGet(service.apiUrl, "/alert-rules", key)).items.find((r: any) => r.name === "errors rising");
    expect(edited).toMatchObject({ condition: { kind: "change", direction: "rise", by: 0.25 }, windowMs: 1_800_000, enabled: true });
    expect(edited.id).toBe(rules.items.find((r: any) => r.name === "errors over 20%").id);
    const hooks = await apiGet(service.apiUrl, "/webhooks", key);
    expect(hooks.items.map((w: any) => w.url)).toContain("https://hooks.example.com/crux");
    await checkPage("alerts");
  });

  it("shows the metrics pages with the API's numbers and passes axe on each", async () => {
    await signIn();
    const from = new Date(Date.now() - 30 * 86_400_000).toISOString();
    const agents = await apiGet(service.apiUrl, `/metrics/agents?from=${encodeURIComponent(from)}&limit=500`, key);
    await page.goto(`${service.uiUrl}agents?window=30d`);
    await page.getByRole("heading", { name: "Per agent" }).waitFor();
    await page.locator("table.data tbody tr").first().waitFor();
    const first = agents.agents[0];
    const row = page.locator("table.data").first().locator("tr", { hasText: first.agent }).first();
    expect(await row.locator("td").nth(1).textContent()).toBe(formatTokens(first.totalTokens));
    await checkPage("agents");
    await page.goto(`${service.uiUrl}failure-modes?window=30d`);
    await page.locator("table.data tbody tr").first().waitFor();
    await checkPage("failure-modes");
    await page.goto(`${service.uiUrl}config`);
    await page.getByRole("heading", { name: "Prices" }).waitFor();
    // The API's validation message lands on the field it concerns.
    const priceForm = page.getByRole("form", { name: "New price" });
    await priceForm.getByLabel("Model", { exact: true }).fill("m-1");
    await priceForm.getByLabel("Input $/MTok", { exact: true }).fill("-1");
    await priceForm.getByLabel("Output $/MTok", { exact: true }).fill("2");
    await priceForm.getByRole("button", { name: "Add price" }).click();
    await page.locator("#prices-inputPerMTok-err").waitFor();
    await checkPage("config");
    await page.goto(`${service.uiUrl}compare?a=${goldens[0]!.traceId}&b=${goldens[1]!.traceId}`);
    await page.locator("table.compare").waitFor();
    await checkPage("compare");
  });

  it("edits the judge settings: provider, model, base URL and a write-only key, errors on their field", async () => {
    await signIn();
    await page.goto(`${service.uiUrl}judges`);
    await page.getByRole("combobox", { name: /^Provider/ }).selectOption("openai");
    await page.getByLabel("Judge model").fill("");
    await page.getByRole("button", { name: "Save" }).click();
    // The API's own message, on the field it concerns.
    await expect.poll(() => page.locator("#err-judge-model").textContent()).toContain("required");
    await page.getByLabel("Judge model").fill("gpt-4o-mini");
    await page.getByLabel("Base URL").fill("https://judge.example.com/v1");
    await page.getByLabel("Sampling share (0–1)").fill("0.25");
    const before = await apiGet(service.apiUrl, "/judge-settings", key);
    const secret = "sk-ui-test-secret-9876";
    if (before.canStoreApiKey) await page.getByLabel("Provider key (write-only)").fill(secret);
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Judge settings saved").waitFor();
    const after = await apiGet(service.apiUrl, "/judge-settings", key);
    expect(after.stored).toMatchObject({ provider: "openai", model: "gpt-4o-mini", baseUrl: "https://judge.example.com/v1", samplingShare: 0.25 });
    if (before.canStoreApiKey) {
      expect(after.stored).toMatchObject({ apiKeySet: true, apiKeyLast4: "9876" });
      // Write-only: the field is emptied and the key is nowhere on the page.
      expect(await page.getByLabel("Provider key (write-only)").inputValue()).toBe("");
      expect(await page.content()).not.toContain(secret);
    }
    await checkPage("judge-settings");
  });

  it("never serves the page for an API path, and serves assets with a year of caching", async () => {
    for (const p of ["api/v1/nope", "API/v1/nope", "%61pi/v1/nope", "v1/nope", "V1/traces"]) {
      const res = await fetch(`${service.uiUrl}${p}`);
      expect(res.headers.get("content-type") ?? "", p).not.toMatch(/html/);
    }
    const html = await (await fetch(service.uiUrl)).text();
    const asset = html.match(/src="(\/assets\/[^"]+\.js)"/)![1]!;
    const res = await fetch(new URL(asset, service.uiUrl));
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const index = await fetch(`${service.uiUrl}runs`);
    expect(index.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
  });
});
