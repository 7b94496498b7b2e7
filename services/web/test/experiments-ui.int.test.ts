/**
 * The Experiments page in Chromium against `pnpm start` (auth on): an implicit experiment seeded
 * through OTLP from tagged runs (a baseline, the whole system and both single-agent coalitions,
 * so credit has exact Shapley values and leave-one-out), whose report the page must show with the
 * API's numbers; a figure opens the runs behind it; and a declared experiment with a runner on
 * loopback, started and stopped from the page, whose progress must equal the API's.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatInterval, formatMultiplier, formatNumber, formatPercent } from "../src/format.ts";
import { checkPage, findChromium, launchBrowser, storeApiKey } from "./browser.ts";
import { experimentExport } from "./experiment-seed.ts";
import { apiGet, createKey, eventually, postOtlpJson, removeDir, startService, tempDataDir, type RunningService } from "./support.ts";

const executablePath = findChromium();

const pct = (x: number) => formatPercent(x);
const num = (x: number) => formatNumber(x, 3);

describe.skipIf(!executablePath)("Experiments page in Chromium against the running service", () => {
  let service: RunningService;
  let dataDir: string;
  let key: string;
  let browser: Browser;
  let page: Page;
  let runner: Server;
  const received: string[] = [];
  let seeded: string[] = [];

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${service.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text === "" ? null : JSON.parse(text);
  };

  beforeAll(async () => {
    runner = createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        received.push(body);
        res.writeHead(202).end();
      });
    });
    await new Promise<void>((resolve) => runner.listen(0, "127.0.0.1", resolve));
    dataDir = tempDataDir();
    key = createKey(dataDir);
    service = await startService(dataDir, { CRUX_AUTH: "true" });
    const seed = experimentExport(
      "exp-ui",
      [
        { name: "single", baseline: true, agents: [], succeeds: (task, trial) => trial === 0 && task % 2 === 0 },
        { name: "full", agents: ["planner", "worker"], succeeds: (task, trial) => (task + trial) % 4 !== 0 },
        { name: "agents:worker", agents: ["worker"], succeeds: (_task, trial) => trial === 0 },
        { name: "agents:planner", agents: ["planner"], succeeds: (task, trial) => task === 0 && trial === 0 },
      ],
      4,
      2,
      Date.now() - 3_600_000,
    );
    seeded = seed.traceIds;
    await postOtlpJson(service.otlpUrl, seed.body, key);
    await eventually(async () => {
      const list = await apiGet(service.apiUrl, "/experiments", key);
      const e = list.items.find((x: any) => x.id === "exp-ui");
      return e?.runs === seeded.length ? true : undefined;
    }, 120_000);
    ({ browser, page } = await launchBrowser(executablePath!));
    await storeApiKey(page, service.uiUrl, key);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await new Promise((resolve) => runner?.close(resolve));
    if (dataDir) removeDir(dataDir);
  }, 60_000);

  /** From the runs list through the navigation. */
  async function openExperiments() {
    await page.goto(`${service.uiUrl}runs`);
    await page.getByRole("heading", { name: "Runs" }).waitFor();
    await page.getByRole("link", { name: "Experiments", exact: true }).click();
    await page.getByRole("heading", { name: "Experiments" }).waitFor();
  }

  it("lists the implicit experiment and shows its report, credit and directive with the API's numbers", async () => {
    const [list, report] = await Promise.all([apiGet(service.apiUrl, "/experiments", key), apiGet(service.apiUrl, "/experiments/exp-ui/report", key)]);
    await openExperiments();
    const row = page.locator('tr[data-experiment="exp-ui"]');
    await row.waitFor();
    expect(await row.textContent()).toContain("implicit");
    expect(await row.locator("td").nth(4).textContent()).toBe(String(list.items.find((x: any) => x.id === "exp-ui").runs));
    await row.getByRole("link").first().click();
    await page.locator("table.variants").waitFor();
    expect(new URL(page.url()).searchParams.get("id")).toBe("exp-ui");

    expect(report.variants).toHaveLength(4);
    for (const v of report.variants) {
      const tr = page.locator(`table.variants tr[data-variant="${v.name}"]`);
      expect(await tr.getByTestId("variant-runs").textContent()).toBe(String(v.runs));
      expect(await tr.getByTestId("success-rate").textContent()).toBe(formatInterval(v.successRate, pct));
      expect(await tr.getByTestId("pass-at-k").allTextContents()).toEqual(v.passK.map((p: any) => formatPercent(p.passAtK)));
      expect(await tr.getByTestId("pass-hat-k").allTextContents()).toEqual(v.passK.map((p: any) => formatPercent(p.passHatK)));
    }
    const full = report.variants.find((v: any) => v.name === "full");
    expect(full.passK.length).toBe(2);
    const paired = page.locator('table.paired tr[data-variant="full"]');
    expect(await paired.getByTestId("quality-difference").textContent()).toBe(formatInterval(full.vsBaseline.qualityDifference, num));
    expect(await paired.getByTestId("token-multiplier").textContent()).toBe(formatInterval(full.vsBaseline.tokenMultiplier, formatMultiplier));
    expect(full.vsBaseline.tokenMultiplier.estimate).toBeGreaterThan(1);
    expect(await paired.getByTestId("cau-status").textContent()).toContain(full.vsBaseline.cau.status.replace("_", " "));

    // Both single-agent coalitions and the pair were run: exact Shapley values and leave-one-out for each agent.
    expect(report.credit.shapley.method).toBe("exact");
    for (const agent of ["planner", "worker"]) {
      const tr = page.locator(`tr[data-credit-agent="${agent}"]`);
      expect(await tr.getByTestId("shapley").textContent()).toBe(num(report.credit.shapley.values[agent]));
      const loo = report.credit.leaveOneOut.find((l: any) => l.agent === agent);
      expect(await tr.getByTestId("loo-delta").textContent()).toBe(formatInterval(loo.delta, num));
      expect(await tr.getByTestId("loo-verdict").textContent()).toBe(loo.verdict.replace("_", " "));
    }
    const decision = { ship: "Ship", hold: "Hold", no_bar: "No bar set" } as Record<string, string>;
    expect(await page.getByTestId("directive-decision").textContent()).toBe(decision[report.directive.decision]);
    expect(await page.getByTestId("directive-reasons").locator("li").allTextContents()).toEqual(report.directive.reasons);
    await checkPage(page, "experiment-report");

    // A figure opens the runs behind it: the runs list holds exactly the variant's runs, asked of the API by experiment and variant.
    const scoped = page.waitForRequest((r) => {
      const url = new URL(r.url());
      return url.pathname === "/api/v1/traces" && url.searchParams.get("experiment") === "exp-ui" && url.searchParams.getAll("variant").join() === "full";
    });
    await page.locator('table.variants tr[data-variant="full"]').getByTestId("success-rate").click();
    await scoped;
    await expect.poll(() => new URL(page.url()).searchParams.getAll("variant")).toEqual(["full"]);
    await expect.poll(() => page.getByTestId("scope-count").textContent()).toBe(`${full.traceIds.length} of ${full.traceIds.length}`);
    const shown = await page.locator("[role=row][data-trace-id]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-trace-id")));
    expect(shown.sort()).toEqual([...full.traceIds].sort());
    await checkPage(page, "experiment-runs");
  });

  it("starts and stops a declared experiment from the page, its progress equal to the API's", async () => {
    const dataset = await call("POST", "/datasets", {
      name: "ui-tasks",
      items: [
        { taskId: "d-0", input: { q: 0 } },
        { taskId: "d-1", input: { q: 1 } },
      ],
    });
    const runnerBody = await call("POST", "/runners", {
      name: "loopback",
      url: `http://127.0.0.1:${(runner.address() as AddressInfo).port}/run`,
      allowPrivateTargets: true,
    });
    await call("POST", "/experiments", {
      id: "exp-declared",
      name: "declared from the UI test",
      datasetId: dataset.id,
      runnerId: runnerBody.id,
      trials: 1,
      runTimeoutMs: 600_000,
      variants: [{ name: "single", isBaseline: true }, { name: "full" }],
    });
    await openExperiments();
    await page.locator('tr[data-experiment="exp-declared"]').getByRole("link").first().click();
    await page.getByTestId("progress-expected").waitFor();
    expect(await page.getByTestId("progress-expected").textContent()).toBe("0");
    await page.getByRole("button", { name: "Start" }).click();
    await expect.poll(() => page.getByRole("status").filter({ hasText: "Started" }).textContent()).toContain("4 runs dispatched");
    // The runner is sent every run (2 tasks × 2 variants × 1 trial).
    await expect.poll(() => received.length, { timeout: 60_000 }).toBe(4);
    expect(received.map((b) => JSON.parse(b).tags["crux.experiment.id"])).toEqual(Array(4).fill("exp-declared"));
    const counts = ["expected", "pending", "running", "scored", "failed", "timedOut", "stopped"] as const;
    const shownCounts = async () =>
      Object.fromEntries(await Promise.all(counts.map(async (k) => [k, Number(await page.getByTestId(`progress-${k}`).textContent())])));
    const apiCounts = async () => {
      const p = await apiGet(service.apiUrl, "/experiments/exp-declared/progress", key);
      return Object.fromEntries(counts.map((k) => [k, p[k]]));
    };
    await expect.poll(async () => JSON.stringify(await shownCounts()) === JSON.stringify(await apiCounts()), { timeout: 30_000 }).toBe(true);
    expect((await shownCounts()).expected).toBe(4);
    await page.getByRole("button", { name: "Stop" }).click();
    await expect.poll(() => page.getByTestId("progress-status").textContent()).toBe("stopped");
    const after = await apiGet(service.apiUrl, "/experiments/exp-declared/progress", key);
    expect(after.status).toBe("stopped");
    expect(await shownCounts()).toEqual(await apiCounts());
    await expect.poll(() => page.getByRole("button", { name: "Resume" }).isEnabled()).toBe(true);
    await checkPage(page, "experiment-progress");
  });
});
