/**
 * The configuration editors, the metrics charts, the agent graph per invocation and the
 * transcript's quotes, in Chromium against the real service (`pnpm start`, auth on), seeded with
 * the golden traces. Every check compares what the page shows or writes with the API.
 */
import { randomBytes } from "node:crypto";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatPercent, formatTokens } from "../src/format.ts";
import { checkPage, findChromium, launchBrowser, storeApiKey } from "./browser.ts";
import { apiGet, createKey, eventually, goldenExports, postOtlpJson, removeDir, startService, tempDataDir, type RunningService } from "./support.ts";

const executablePath = findChromium();
const quote = "the budget is $5 per run";

/** One agent's run of `steps` tool calls, each with its arguments as content; one of them carries `quote`. */
function longRun(steps: number, quoted: number) {
  const hex = (n: number) => randomBytes(n).toString("hex");
  const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
  const traceId = hex(16);
  const agentId = hex(8);
  const start = Date.now() - 3_600_000;
  const ns = (ms: number) => (BigInt(ms) * 1_000_000n).toString();
  const spans: object[] = [];
  for (let i = 0; i < steps; i++) {
    spans.push({
      traceId,
      spanId: hex(8),
      parentSpanId: agentId,
      name: "execute_tool search",
      kind: 1,
      startTimeUnixNano: ns(start + 10 + i * 10),
      endTimeUnixNano: ns(start + 15 + i * 10),
      attributes: [
        str("gen_ai.operation.name", "execute_tool"),
        str("gen_ai.tool.name", "search"),
        str("gen_ai.tool.call.arguments", JSON.stringify({ q: i === quoted ? `note that ${quote}, no more` : `query ${i}` })),
      ],
      status: {},
    });
  }
  spans.push({
    traceId,
    spanId: agentId,
    name: "invoke_agent worker",
    kind: 1,
    startTimeUnixNano: ns(start),
    endTimeUnixNano: ns(start + 20 + steps * 10),
    attributes: [str("gen_ai.operation.name", "invoke_agent"), str("gen_ai.agent.name", "worker")],
    status: {},
  });
  const body = JSON.stringify({
    resourceSpans: [{ resource: { attributes: [str("service.name", "long-run")] }, scopeSpans: [{ scope: { name: "test" }, spans }] }],
  });
  return { traceId, body };
}
/** One run of `agent`, `hoursAgo`: an agent span and a chat span, with `tokens` input tokens or none reported. */
function agentRun(agent: string, tokens: number | null, hoursAgo: number) {
  const hex = (n: number) => randomBytes(n).toString("hex");
  const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
  const traceId = hex(16);
  const agentId = hex(8);
  const start = Date.now() - hoursAgo * 3_600_000;
  const ns = (ms: number) => (BigInt(ms) * 1_000_000n).toString();
  const usage =
    tokens === null
      ? []
      : [
          { key: "gen_ai.usage.input_tokens", value: { intValue: String(tokens) } },
          { key: "gen_ai.usage.output_tokens", value: { intValue: "1" } },
        ];
  const spans = [
    {
      traceId,
      spanId: agentId,
      name: `invoke_agent ${agent}`,
      kind: 1,
      startTimeUnixNano: ns(start),
      endTimeUnixNano: ns(start + 100),
      attributes: [str("gen_ai.operation.name", "invoke_agent"), str("gen_ai.agent.name", agent)],
      status: {},
    },
    {
      traceId,
      spanId: hex(8),
      parentSpanId: agentId,
      name: "chat gpt-4o-mini",
      kind: 3,
      startTimeUnixNano: ns(start + 10),
      endTimeUnixNano: ns(start + 90),
      attributes: [str("gen_ai.operation.name", "chat"), str("gen_ai.system", "openai"), str("gen_ai.request.model", "gpt-4o-mini"), ...usage],
      status: {},
    },
  ];
  return JSON.stringify({
    resourceSpans: [{ resource: { attributes: [str("service.name", "token-report")] }, scopeSpans: [{ scope: { name: "test" }, spans }] }],
  });
}
// "silent" never reports tokens; "partial" reports them in one run of two an hour ago, and not in its run 5 hours ago.
const tokenRuns = [agentRun("silent", null, 1), agentRun("partial", 200_000, 1), agentRun("partial", null, 1), agentRun("partial", null, 5)];

describe.skipIf(!executablePath)("configuration editors, charts, graph and transcript in Chromium", () => {
  let service: RunningService;
  let dataDir: string;
  let key: string;
  let browser: Browser;
  let page: Page;
  const goldens = goldenExports();
  const long = longRun(150, 120);

  beforeAll(async () => {
    dataDir = tempDataDir();
    key = createKey(dataDir);
    service = await startService(dataDir, { CRUX_AUTH: "true" });
    for (const g of goldens) await postOtlpJson(service.otlpUrl, g.body, key);
    await postOtlpJson(service.otlpUrl, long.body, key);
    for (const body of tokenRuns) await postOtlpJson(service.otlpUrl, body, key);
    await eventually(async () => {
      const list = await apiGet(service.apiUrl, "/traces?limit=50", key);
      return list.items.length === goldens.length + 1 + tokenRuns.length && list.items.every((i: any) => i.scored) ? true : undefined;
    }, 120_000);
    ({ browser, page } = await launchBrowser(executablePath!));
    await storeApiKey(page, service.uiUrl, key);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    if (dataDir) removeDir(dataDir);
  }, 60_000);

  /** The error shown inside a form field's label. */
  const fieldError = (form: Locator, label: string) => form.locator("label", { hasText: label }).locator(".field-error");

  it("creates, edits and deletes contracts, milestone sets and baselines, and saves the settings, errors on their field", async () => {
    await page.goto(`${service.uiUrl}config`);
    await page.getByRole("heading", { name: "Configuration" }).waitFor();

    // An agent contract: created, then edited through its row (an empty role is refused on Role).
    let form = page.getByRole("form", { name: "New agent contract" });
    await form.getByLabel("Agent", { exact: true }).fill("planner");
    await form.getByLabel("Role", { exact: true }).fill("plans");
    await form.getByLabel("Allowed tools").fill("search, fetch");
    await form.getByRole("button", { name: "Add agent contract" }).click();
    await page.getByRole("button", { name: "Edit agent contract */planner" }).click();
    form = page.getByRole("form", { name: "Edit agent contract" });
    expect(await form.getByLabel("Allowed tools").inputValue()).toBe("search, fetch");
    await form.getByLabel("Role", { exact: true }).fill("  ");
    await form.getByRole("button", { name: "Save changes" }).click();
    await expect.poll(() => fieldError(form, "Role").textContent()).toMatch(/\S/);
    await form.getByLabel("Role", { exact: true }).fill("lead planner");
    await form.getByLabel("Completion condition").fill("$count(spans) >");
    await form.getByRole("button", { name: "Save changes" }).click();
    await expect.poll(() => fieldError(form, "Completion condition").textContent()).toContain("completionCondition");
    await form.getByLabel("Completion condition").fill("");
    await form.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("form", { name: "New agent contract" }).waitFor();
    const contracts = await apiGet(service.apiUrl, "/agent-contracts", key);
    expect(contracts.items).toHaveLength(1);
    expect(contracts.items[0]).toMatchObject({ agent: "planner", role: "lead planner", allowedTools: ["search", "fetch"], completionCondition: null });

    // A handoff contract whose JSON Schema does not compile: the API's error lands on the schema field.
    form = page.getByRole("form", { name: "New handoff contract" });
    await form.getByLabel("Sender").fill("planner");
    await form.getByLabel("Receiver").fill("worker");
    await form.getByLabel("JSON Schema of the payload").fill('{"type": 5}');
    await form.getByRole("button", { name: "Add handoff contract" }).click();
    await expect.poll(() => fieldError(form, "JSON Schema").textContent()).toContain("jsonSchema");
    await form.getByLabel("JSON Schema of the payload").fill('{"type": "object", "required": ["goal"]}');
    await form.getByRole("button", { name: "Add handoff contract" }).click();
    await page.getByRole("button", { name: "Edit handoff contract planner to worker" }).waitFor();
    expect((await apiGet(service.apiUrl, "/handoff-contracts", key)).items[0].jsonSchema).toEqual({ type: "object", required: ["goal"] });

    // A milestone set: a check that is not JSONata is refused on Milestones; then saved and renamed.
    form = page.getByRole("form", { name: "New milestone set" });
    await form.getByLabel("Name", { exact: true }).fill("research");
    await form.getByLabel("Milestones").fill('[{"id": "found", "weight": 1, "check": "$count(spans) >"}]');
    await form.getByRole("button", { name: "Add milestone set" }).click();
    await expect.poll(() => fieldError(form, "Milestones").textContent()).toContain("milestones[0].check");
    await form.getByLabel("Milestones").fill('[{"id": "found", "weight": 1, "check": "$count(spans) > 0"}]');
    await form.getByRole("button", { name: "Add milestone set" }).click();
    await page.getByRole("button", { name: "Edit milestone set research" }).click();
    form = page.getByRole("form", { name: "Edit milestone set" });
    await form.getByLabel("Name", { exact: true }).fill("research v2");
    await form.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("button", { name: "Edit milestone set research v2" }).waitFor();
    const sets = (await apiGet(service.apiUrl, "/milestone-sets", key)).items;
    expect(sets.map((s: any) => [s.name, s.milestones[0].check])).toEqual([["research v2", "$count(spans) > 0"]]);

    // A baseline with neither task nor service: the API's refusal is on Task; then one per task, edited.
    form = page.getByRole("form", { name: "New baseline" });
    await form.getByLabel("Tokens").fill("1000");
    await form.getByRole("button", { name: "Add baseline" }).click();
    await expect.poll(() => fieldError(form, "Task").textContent()).toContain("set taskId or serviceName");
    await form.getByLabel("Task").fill("t-1");
    await form.getByRole("button", { name: "Add baseline" }).click();
    await page.getByRole("button", { name: "Edit baseline */t-1" }).click();
    form = page.getByRole("form", { name: "Edit baseline" });
    await form.getByLabel("Tokens").fill("-5");
    await form.getByRole("button", { name: "Save changes" }).click();
    await expect.poll(() => fieldError(form, "Tokens").textContent()).toMatch(/\S/);
    await form.getByLabel("Tokens").fill("2500");
    await form.getByLabel("Cost (USD)").fill("0.5");
    await form.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("form", { name: "New baseline" }).waitFor();
    expect((await apiGet(service.apiUrl, "/baselines", key)).items.map((b: any) => [b.taskId, b.tokens, b.costUsd])).toEqual([["t-1", 2500, 0.5]]);

    // A project price edited in place; the seeded defaults are not editable.
    form = page.getByRole("form", { name: "New price" });
    await form.getByLabel("Model", { exact: true }).fill("my-model");
    await form.getByLabel("Input $/MTok", { exact: true }).fill("1");
    await form.getByLabel("Output $/MTok", { exact: true }).fill("2");
    await form.getByRole("button", { name: "Add price" }).click();
    await page.getByRole("button", { name: "Edit price my-model" }).click();
    form = page.getByRole("form", { name: "Edit price" });
    await form.getByLabel("Output $/MTok", { exact: true }).fill("abc");
    await form.getByRole("button", { name: "Save changes" }).click();
    await expect.poll(() => fieldError(form, "Output $/MTok").textContent()).toMatch(/\S/);
    await form.getByLabel("Output $/MTok", { exact: true }).fill("3");
    await form.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("form", { name: "New price" }).waitFor();
    const prices = (await apiGet(service.apiUrl, "/prices", key)).items;
    expect(prices.find((p: any) => p.model === "my-model")).toMatchObject({ outputPerMTok: 3, source: "project" });
    const defaults = prices.filter((p: any) => p.source === "default").length;
    expect(await page.locator('section[aria-label="Prices"] tbody tr', { hasText: "default" }).count()).toBe(defaults);

    // Deleting asks once more, then the row is gone from the API.
    await page.getByRole("button", { name: "Delete agent contract */planner" }).click();
    await page.getByRole("button", { name: "Confirm delete" }).click();
    await expect.poll(async () => (await apiGet(service.apiUrl, "/agent-contracts", key)).items.length).toBe(0);
    await expect.poll(() => page.getByRole("button", { name: "Edit agent contract */planner" }).count()).toBe(0);

    // Settings: k below 2 is refused on its field, all-zero weights on the weights; then saved.
    form = page.getByRole("form", { name: "Scoring settings" });
    await form.getByLabel("Repetition threshold (k)").fill("1");
    await form.getByRole("button", { name: "Save settings" }).click();
    await expect.poll(() => form.locator("#settings-repetitionK-err").textContent()).toMatch(/\S/);
    await form.getByLabel("Repetition threshold (k)").fill("5");
    for (const w of ["Redundancy weight", "Ignored-handoffs weight", "Role-violations weight"]) await form.getByLabel(w).fill("0");
    await form.getByRole("button", { name: "Save settings" }).click();
    await expect.poll(() => form.locator("#settings-coordinationWeights-err").textContent()).toContain("positive");
    await form.getByLabel("Redundancy weight").fill("2");
    await form.getByRole("button", { name: "Save settings" }).click();
    await form.getByRole("status").waitFor();
    expect(await apiGet(service.apiUrl, "/settings", key)).toEqual({
      repetitionK: 5,
      coordinationWeights: { redundancy: 2, ignoredHandoffs: 0, roleViolations: 0 },
    });
    await checkPage(page, "config-edit");
  }, 180_000);
  it("charts failure-mode rates and agent tokens over time, each point opening its bucket's runs", async () => {
    await page.goto(`${service.uiUrl}failure-modes?window=7d`);
    const chart = page.getByRole("group", { name: "Failure-mode rates over time" });
    await chart.waitFor();
    // The highest point of the chart: its value is the API's rate for that bucket and mode.
    const points = chart.locator("a[data-bucket]");
    expect(await points.count()).toBeGreaterThan(0);
    const all = await points.evaluateAll((els) => els.map((e) => ({ href: e.getAttribute("href")!, label: e.getAttribute("aria-label")! })));
    const top = all.find((p) => !p.label.endsWith(": 0%")) ?? all[0]!;
    const q = new URL(top.href, service.uiUrl).searchParams;
    const mode = q.get("mode")!;
    const rates = await apiGet(
      service.apiUrl,
      `/metrics/failure-modes?groupBy=mode&limit=500&from=${encodeURIComponent(q.get("from")!)}&to=${encodeURIComponent(q.get("to")!)}`,
      key,
    );
    const rate = rates.rates.find((r: any) => r.mode === mode);
    expect(top.label).toContain(`${mode}, `);
    expect(top.label.endsWith(`: ${formatPercent(rate.rate, 0)}`)).toBe(true);
    // A mode that is unmeasured in a bucket is a gap: no point for it there.
    const unmeasured = rates.coverage.filter((c: any) => !c.measured).map((c: any) => c.mode);
    for (const m of unmeasured) expect(all.filter((p) => p.label.startsWith(`${m}, `) && p.href.includes(encodeURIComponent(q.get("from")!)))).toEqual([]);
    await checkPage(page, "failure-modes-chart");
    await chart.locator(`a[href="${top.href}"]`).click();
    await page.waitForURL((u) => u.pathname === "/runs" && u.searchParams.get("from") === q.get("from") && u.searchParams.get("mode") === mode);
    await page.getByTestId("time-range").waitFor();
    const runs = await apiGet(
      service.apiUrl,
      `/traces?limit=50&mode=${mode}&from=${encodeURIComponent(q.get("from")!)}&to=${encodeURIComponent(q.get("to")!)}`,
      key,
    );
    expect(runs.items.length).toBeGreaterThan(0);
    await expect.poll(() => page.locator("[role=row][data-trace-id]").count()).toBe(runs.items.length);

    await page.goto(`${service.uiUrl}agents?window=7d`);
    const agentsChart = page.getByRole("group", { name: "Per-agent tokens over time" });
    await agentsChart.waitFor();
    const agentPoints = await agentsChart
      .locator("a[data-bucket]")
      .evaluateAll((els) => els.map((e) => ({ href: e.getAttribute("href")!, label: e.getAttribute("aria-label")! })));
    const used = agentPoints.find((p) => !p.label.endsWith(": 0") && !p.label.includes("not reported"))!;
    const aq = new URL(used.href, service.uiUrl).searchParams;
    const usage = await apiGet(
      service.apiUrl,
      `/metrics/agents?limit=500&from=${encodeURIComponent(aq.get("from")!)}&to=${encodeURIComponent(aq.get("to")!)}`,
      key,
    );
    const agent = usage.agents.find((a: any) => a.agent === aq.get("agent"));
    expect(used.label).toBe(`${agent.agent}, ${used.label.slice(agent.agent.length + 2, used.label.lastIndexOf(": "))}: ${formatTokens(agent.totalTokens)}`);
    await checkPage(page, "agents-chart");
    // By keyboard: points are focusable links (another series' point may sit on top of this one).
    await agentsChart.locator(`a[href="${used.href}"]`).focus();
    await page.keyboard.press("Enter");
    await page.waitForURL((u) => u.pathname === "/runs" && u.searchParams.get("agent") === agent.agent);
    await expect.poll(() => page.locator("[role=row][data-trace-id]").count()).toBe(agent.traces);
  }, 180_000);

  it("says tokens are not reported, not 0, where no run of an agent reported them, and counts the runs that did not", async () => {
    const from = new Date(Date.now() - 86_400_000).toISOString();
    const usage = await apiGet(service.apiUrl, `/metrics/agents?limit=500&from=${encodeURIComponent(from)}`, key);
    const silent = usage.agents.find((a: any) => a.agent === "silent");
    const partial = usage.agents.find((a: any) => a.agent === "partial");
    expect(silent).toMatchObject({ tokensReported: false, totalTokens: null, costUsd: null, tokensNotReportedRows: 1 });
    expect(partial).toMatchObject({ tokensReported: true, tokensNotReportedRows: 2 });
    expect(usage.totals.tokensNotReportedRows).toBeGreaterThanOrEqual(3);

    await page.goto(`${service.uiUrl}agents?window=24h`);
    const table = page.locator("table.data").first();
    await table.locator('tr[data-agent-row="silent"]').waitFor();
    const cells = (agent: string) => table.locator(`tr[data-agent-row="${agent}"] td`).allTextContents();
    // Runs, tokens, token share, cost, cost share, errors.
    expect(await cells("silent")).toEqual(["1", "not reported", "not reported", "not reported", "not reported", "0"]);
    const partialCells = await cells("partial");
    expect(partialCells[1]).toBe(`${formatTokens(partial.totalTokens)} (2 runs not reported)`);
    expect(await page.getByTestId("tokens-not-reported-total").textContent()).toContain(
      `${usage.totals.tokensNotReportedRows} per-run agent rows reported no token counts`,
    );

    // The chart: the bucket where only partial's unreported run falls is a hollow "not reported" marker, not 0;
    // the bucket with both kinds of run says how many did not report.
    const chart = page.getByRole("group", { name: "Per-agent tokens over time" });
    await chart.waitFor();
    const points = await chart
      .locator('g[data-series="partial"] a[data-bucket]')
      .evaluateAll((els) =>
        els.map((e) => ({ label: e.getAttribute("aria-label")!, missing: e.getAttribute("data-missing") === "true", href: e.getAttribute("href")! })),
      );
    const missing = points.filter((p) => p.missing);
    expect(missing).toHaveLength(1);
    expect(missing[0]!.label).toMatch(/^partial, .*: not reported$/);
    const mq = new URL(missing[0]!.href, service.uiUrl).searchParams;
    const bucket = await apiGet(
      service.apiUrl,
      `/metrics/agents?limit=500&from=${encodeURIComponent(mq.get("from")!)}&to=${encodeURIComponent(mq.get("to")!)}`,
      key,
    );
    expect(bucket.agents.find((a: any) => a.agent === "partial")).toMatchObject({ tokensReported: false, totalTokens: null });
    const qualified = points.filter((p) => p.label.endsWith("(tokens not reported by 1 run)"));
    expect(qualified).toHaveLength(1);
    expect(qualified[0]!.label).toContain(`: ${formatTokens(200_001)} (`);
    // One marker per bucket: the unreported bucket has no filled point besides it.
    expect(points.filter((p) => p.href === missing[0]!.href)).toHaveLength(1);
    await checkPage(page, "agents-not-reported");
  }, 120_000);

  it("draws the agent graph per invocation, each invocation with its own usage, and selects its span", async () => {
    const chat = goldens.find((g) => g.name.includes("autogen") || g.name.includes("group"))!;
    const detail = await apiGet(service.apiUrl, `/traces/${chat.traceId}`, key);
    const spans: any[] = [];
    const walk = (n: any) => {
      spans.push(n);
      n.children.forEach(walk);
    };
    detail.roots.forEach(walk);
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const invocations = new Map<string, number>();
    for (const s of spans) {
      const parent = byId.get(s.parentSpanId);
      if (s.agent && parent?.agent !== s.agent) invocations.set(s.agent, (invocations.get(s.agent) ?? 0) + 1);
    }
    const [repeated, times] = [...invocations].sort((a, b) => b[1] - a[1])[0]!;
    expect(times).toBeGreaterThan(1);
    await page.goto(`${service.uiUrl}runs/${chat.traceId}`);
    await page.locator(`g.node[data-agent="${repeated}"]`).waitFor();
    await page.getByRole("button", { name: "Per invocation" }).click();
    const nodes = page.locator(`g.node[data-agent^="${repeated} #"]`);
    await expect.poll(() => nodes.count()).toBe(times);
    // The invocations' tokens add up to the agent's.
    const agentUsage = detail.scoring.agents.find((a: any) => a.agent === repeated);
    const texts = await nodes.allTextContents();
    const tokens = texts.map((t) => Number((/([\d,]+) tok/.exec(t)?.[1] ?? "0").replace(/,/g, "")));
    expect(tokens.reduce((a, b) => a + b, 0)).toBe(agentUsage.totalTokens ?? 0);
    expect(new URL(page.url()).searchParams.get("graph")).toBe("invocations");
    await page.locator(`g.node[data-agent="${repeated} #2"]`).click();
    await expect.poll(() => page.locator(`g.node[data-agent="${repeated} #2"]`).getAttribute("aria-pressed")).toBe("true");
    const selected = byId.get(new URL(page.url()).searchParams.get("span"));
    expect(selected.agent).toBe(repeated);
    expect(await page.locator(`g.node[data-agent="${repeated} #1"]`).getAttribute("aria-pressed")).toBe("false");
    await checkPage(page, "run-per-invocation");
    await page.getByRole("button", { name: "Per agent" }).click();
    await expect.poll(() => page.locator(`g.node[data-agent="${repeated}"]`).count()).toBe(1);
  }, 120_000);
  it("virtualises a long transcript and highlights the quote a verdict cites in its step", async () => {
    const trajectories = await apiGet(service.apiUrl, `/traces/${long.traceId}/trajectories`, key);
    const steps = trajectories.items.find((t: any) => t.agent === "worker").steps;
    expect(steps.length).toBeGreaterThanOrEqual(150);
    const cited = steps.find((st: any) => (st.text.args ?? "").includes(quote));
    // A judge's verdict citing that step (the judges' provider is not reachable here: its answer is served to the page).
    await page.route(`**/api/v1/traces/${long.traceId}/verdicts*`, (route) =>
      route.fulfill({
        contentType: "application/json",
        body: JSON.stringify({
          traceId: long.traceId,
          nextCursor: null,
          items: [
            {
              producerId: "judge.mast-checklist",
              producerVersion: 1,
              model: "m",
              inputHash: "h",
              status: "succeeded",
              selfPreferenceWarning: null,
              createdAt: new Date().toISOString(),
              result: {
                findings: [
                  { mode: "FM-1.1", agent: "worker", spanId: cited.spanId, stepIndex: cited.index, evidence: quote, explanation: "e", confidence: 0.9 },
                ],
              },
            },
          ],
        }),
      }),
    );
    const first = steps[0];
    await page.goto(`${service.uiUrl}runs/${long.traceId}?span=${first.spanId}`);
    const list = page.getByRole("list", { name: "Steps of worker" });
    await list.locator(`article[data-span-id="${first.spanId}"]`).waitFor();
    expect(await list.getAttribute("data-virtual")).toBe("true");
    const rendered = await list.getByRole("listitem").count();
    expect(rendered).toBeLessThan(40);
    expect(await list.locator(`article[data-span-id="${cited.spanId}"]`).count()).toBe(0);
    // Selecting the cited step (from the span tree's deep link) brings it into the page, its quote marked.
    await page.goto(`${service.uiUrl}runs/${long.traceId}?span=${cited.spanId}`);
    const step = list.locator(`article[data-span-id="${cited.spanId}"]`);
    await step.waitFor();
    // Marked in each field of the step that holds it (the arguments, and the input when it repeats them).
    const marks = await step.locator("mark").allTextContents();
    expect(marks.length).toBeGreaterThan(0);
    expect(new Set(marks)).toEqual(new Set([quote]));
    expect(await step.getAttribute("aria-current")).toBe("true");
    const box = await step.boundingBox();
    const listBox = await list.boundingBox();
    expect(box!.y + box!.height).toBeGreaterThan(listBox!.y);
    expect(box!.y).toBeLessThan(listBox!.y + listBox!.height);
    expect(await list.locator(`article[data-span-id="${first.spanId}"]`).count()).toBe(0);
    await checkPage(page, "run-long-transcript");
    await page.unroute(`**/api/v1/traces/${long.traceId}/verdicts*`);
  }, 120_000);
});
