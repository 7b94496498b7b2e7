/**
 * Counterfactual replay from the UI, in Chromium against `pnpm start` (auth on): a failed run is
 * replayed from its page with corrections of two agents; the API's refusals land on their field
 * (trials out of range, no runner); a loopback runner re-runs a fake system in which only the
 * planner's correction fixes the task and exports each re-run with the tags it was given, so the
 * report fills in. The page's progress, per-set successes, flip rates, decisive agent and verdict
 * must equal the API's, and the attribution section must then show the `replay` method first.
 * An experiment's failed run links to the same form.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { taggedRunsExport } from "@crux/testkit";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatPercent } from "../src/format.ts";
import { checkPage, findChromium, launchBrowser, storeApiKey } from "./browser.ts";
import { experimentExport } from "./experiment-seed.ts";
import { apiGet, createKey, eventually, postOtlpJson, removeDir, startService, tempDataDir, type RunningService } from "./support.ts";

const executablePath = findChromium();

/** One run of the fake crew, the task as its root input: a root span that is no agent, the planner and the coder under it. */
function crewRun(success: boolean, tags: Record<string, string | number | boolean | string[]> = {}): { traceId: string; body: string } {
  const { body, traceIds } = taggedRunsExport(
    [
      {
        rootAgent: null,
        attributes: { ...tags, "input.value": "fix the parser" },
        agents: ["planner", "coder"],
        success,
        tokens: { input: 300, output: 40 },
        startMs: Date.now() - 60_000,
      },
    ],
    "replay-crew",
  );
  return { traceId: traceIds[0]!, body };
}

describe.skipIf(!executablePath)("replay from the UI in Chromium against the running service", () => {
  let service: RunningService;
  let dataDir: string;
  let key: string;
  let browser: Browser;
  let page: Page;
  let runner: Server;
  const received: any[] = [];
  const exports: Promise<unknown>[] = [];
  const original = crewRun(false);

  const send = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${service.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    // The fake system behind the runner: the planner's mistake is what fails the task.
    runner = createServer((req, res) => {
      let text = "";
      req.on("data", (d) => (text += d));
      req.on("end", () => {
        const run = JSON.parse(text);
        received.push(run);
        res.writeHead(202).end();
        const fixed = run.corrections.some((c: any) => c.agent === "planner");
        const rerun = crewRun(fixed, run.tags);
        exports.push(postOtlpJson(service.otlpUrl, rerun.body, key).catch(() => undefined));
      });
    });
    await new Promise<void>((resolve) => runner.listen(0, "127.0.0.1", resolve));
    dataDir = tempDataDir();
    key = createKey(dataDir);
    service = await startService(dataDir, { CRUX_AUTH: "true" });
    await postOtlpJson(service.otlpUrl, original.body, key);
    const seed = experimentExport(
      "exp-replay",
      [
        { name: "single", baseline: true, agents: [], succeeds: (task) => task === 0 },
        { name: "full", agents: ["planner", "worker"], succeeds: (_task, trial) => trial === 0 },
      ],
      2,
      2,
      Date.now() - 3_600_000,
    );
    await postOtlpJson(service.otlpUrl, seed.body, key);
    await eventually(async () => {
      const list = await apiGet(service.apiUrl, "/traces?limit=50", key);
      return list.items.length === 1 + seed.traceIds.length && list.items.every((i: any) => i.scored) ? true : undefined;
    }, 120_000);
    ({ browser, page } = await launchBrowser(executablePath!));
    await storeApiKey(page, service.uiUrl, key);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all(exports);
    await service?.stop();
    await new Promise((resolve) => runner?.close(resolve));
    if (dataDir) removeDir(dataDir);
  }, 60_000);

  it("starts a replay of a failed run, shows the API's refusals on their field, and its report with the API's numbers", async () => {
    // With a step selected, the step can be corrected alone too.
    const detail = await apiGet(service.apiUrl, `/traces/${original.traceId}`, key);
    const coderSpan = detail.roots[0].children.find((c: any) => c.name === "invoke_agent coder");
    await page.goto(`${service.uiUrl}runs/${original.traceId}?span=${coderSpan.spanId}`);
    const section = page.getByRole("region", { name: "Replays" });
    await section.getByText("No replay of this run yet.").waitFor();
    await section.getByRole("button", { name: "Replay with corrections" }).click();
    const form = page.getByRole("form", { name: "Start a replay" });
    await form.getByLabel(`Step invoke_agent coder (${coderSpan.spanId})`).waitFor();
    await form.getByLabel("Agent planner", { exact: true }).check();
    await form.getByLabel("Agent coder", { exact: true }).check();
    await form.getByLabel("Corrected output of agent planner").fill("plan: fix the tokenizer first");
    await form.getByLabel("Corrected output of agent coder").fill('{"patch": "v2"}');
    const body = (trials: number) => ({
      corrections: [
        { agent: "planner", output: "plan: fix the tokenizer first" },
        { agent: "coder", output: { patch: "v2" } },
      ],
      trials,
    });
    const fieldError = (label: string) => form.locator("label", { hasText: label }).locator(".field-error");

    // Too many trials: the API's schema error, on the trials field.
    await form.getByLabel("Trials per correction set").fill("21");
    await form.getByRole("button", { name: "Start the replay" }).click();
    const tooMany = await send("POST", `/traces/${original.traceId}/replay`, body(21));
    expect(tooMany.status).toBe(400);
    const trialsMessage = tooMany.body.details.find((d: any) => d.path === "/trials").message;
    await expect.poll(() => fieldError("Trials per correction set").textContent()).toBe(trialsMessage);

    // No runner registered: the API's message, on the runner field.
    await form.getByLabel("Trials per correction set").fill("3");
    await form.getByRole("button", { name: "Start the replay" }).click();
    const noRunner = await send("POST", `/traces/${original.traceId}/replay`, body(3));
    expect(noRunner.status).toBe(400);
    await expect.poll(() => fieldError("Runner").textContent()).toBe(noRunner.body.message);
    expect(noRunner.body.message).toMatch(/no runner/);
    expect(await fieldError("Trials per correction set").count()).toBe(0);
    await checkPage(page, "replay-form-errors");

    const registered = await send("POST", "/runners", {
      name: "loopback",
      url: `http://127.0.0.1:${(runner.address() as AddressInfo).port}/run`,
      allowPrivateTargets: true,
    });
    expect(registered.status).toBe(201);
    await form.getByRole("button", { name: "Start the replay" }).click();
    // Started: the form closes and the panel lists the replay.
    await form.waitFor({ state: "detached" });
    const item = section.locator("article[data-replay]");
    await item.waitFor();
    const replayId = (await item.getAttribute("data-replay"))!;
    expect(new URL(page.url()).searchParams.get("replay")).toBeNull();
    expect(await item.getByTestId("replay-progress-expected").textContent()).toBe("9");

    const done = await eventually(async () => {
      const r = await apiGet(service.apiUrl, `/replays/${replayId}`, key);
      return r.report.complete ? r : undefined;
    }, 150_000);
    expect(received).toHaveLength(9);
    expect(done.report.verdict).toBe("decisive");
    // The page reads on while the replay runs (a verdict can be certain before the last re-run):
    // it ends on the API's finished progress and report.
    const counts = ["expected", "pending", "running", "scored", "failed", "timedOut", "stopped"];
    const shown = async () => Promise.all(counts.map(async (k) => Number(await item.getByTestId(`replay-progress-${k}`).textContent())));
    await expect.poll(shown, { timeout: 30_000 }).toEqual(counts.map((k) => done.progress[k]));
    expect(await item.getByTestId("replay-verdict").textContent()).toBe(done.report.verdict);
    await expect.poll(() => item.getAttribute("data-complete")).toBe("true");
    expect(await item.getByTestId("replay-flip-rate").textContent()).toBe(formatPercent(done.report.flipRate));
    expect(await item.getByTestId("replay-decisive").textContent()).toBe(
      done.report.decisive.map((d: any) => `${d.agents.join(" + ")} (${d.succeeded}/${d.trials})`).join(", "),
    );
    expect(await item.getByTestId("replay-decisive").textContent()).toBe("planner (3/3)");
    expect(await item.getByTestId("replay-shared").count()).toBe(0);
    expect(done.report.sets.map((s: any) => s.id).sort()).toEqual(["agent:coder", "agent:planner", "all"]);
    for (const s of done.report.sets) {
      const row = item.locator(`tr[data-set="${s.id}"]`);
      expect(await row.getByTestId("set-succeeded").textContent()).toBe(`${s.succeeded}/${s.trials}`);
      expect(await row.getByTestId("set-failed").textContent()).toBe(String(s.failed));
      expect(await row.getByTestId("set-flip-rate").textContent()).toBe(formatPercent(s.flipRate));
    }

    // The replay names the planner: the attribution section lists the replay method first.
    const attribution = await apiGet(service.apiUrl, `/traces/${original.traceId}/attribution`, key);
    expect(attribution.methods[0]).toMatchObject({ method: "replay", pick: { agent: "planner" } });
    const methods = page.getByRole("region", { name: "Attribution" }).getByTestId("attribution-method");
    await expect.poll(() => methods.first().textContent(), { timeout: 15_000 }).toBe("replay");
    expect(await methods.allTextContents()).toEqual(attribution.methods.map((m: any) => m.method));
    await checkPage(page, "replay-report");
  }, 240_000);

  it("links an experiment's failed runs to the replay form", async () => {
    const [report, failed] = await Promise.all([
      apiGet(service.apiUrl, "/experiments/exp-replay/report", key),
      apiGet(service.apiUrl, "/traces?outcome=failed&limit=500", key),
    ]);
    const ours = new Set(report.variants.flatMap((v: any) => v.traceIds));
    const expected = failed.items.filter((t: any) => ours.has(t.traceId)).map((t: any) => t.traceId);
    expect(expected.length).toBeGreaterThan(0);
    await page.goto(`${service.uiUrl}experiments?id=exp-replay`);
    const rows = page.locator("table.failed-runs tr[data-failed-run]");
    await rows.first().waitFor();
    expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute("data-failed-run")))).toEqual(expected);
    await checkPage(page, "experiment-failed-runs");

    // A run of the variant in which the planner acts.
    const full = new Set(report.variants.find((v: any) => v.name === "full").traceIds);
    const traceId = expected.find((id: string) => full.has(id));
    expect(traceId).toBeDefined();
    await page
      .locator(`tr[data-failed-run="${traceId}"]`)
      .getByRole("link", { name: /^Replay the run/ })
      .click();
    await page.waitForURL((u) => u.pathname === `/runs/${traceId}` && u.searchParams.get("replay") === "new");
    const form = page.getByRole("form", { name: "Start a replay" });
    await form.getByLabel("Agent planner", { exact: true }).check();
    await form.getByLabel("Corrected output of agent planner").fill("a better plan");
    await form.getByRole("button", { name: "Start the replay" }).click();
    // These runs carry no task to re-run (no dataset item, no root input): the API's refusal, said in the form.
    const refused = await send("POST", `/traces/${traceId}/replay`, { corrections: [{ agent: "planner", output: "a better plan" }], trials: 5 });
    expect(refused.status).toBe(409);
    await expect.poll(() => form.getByRole("alert").textContent()).toBe(refused.body.message);
  }, 120_000);
});
