/**
 * `pnpm bench:ui`: the web UI in a real browser (Debian's Chromium) against `pnpm start`.
 *  1. A 2,000-span, 8-agent run: time from the last of its API answers arriving to the graph,
 *     timeline and tree drawn and a selection (a click on a timeline bar) shown in the tree.
 *  2. The runs list scrolled through 10,000 runs (keyset pages fetched as it scrolls): the longest
 *     main-thread task while scrolling, from the browser's performance timeline (longtask entries);
 *     then the same scroll on a fresh page under a Chromium trace, for each task's thread time.
 *  3. The initial JavaScript (what index.html loads before any page chunk), gzipped.
 * The 10,000 runs are single orphan spans (their parent never arrives), so none settles or is
 * scored while the benchmark runs (CRUX_SETTLE_DELAY_MS and the sweeper's quiet period are long);
 * the big run holds its root and every parent in one batch, so it settles at once and is scored.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { randomBytes } from "node:crypto";
import { cpus, loadavg } from "node:os";
import {
  apiGet,
  chromium,
  chromiumPath,
  eventually,
  noChromiumLine,
  orphanRuns,
  postOtlpJson,
  removeDir,
  repoRoot,
  startService,
  tempDataDir,
} from "../services/web/test/support.ts";

const hex = (bytes: number) => randomBytes(bytes).toString("hex");
const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
const int = (key: string, value: number) => ({ key, value: { intValue: String(value) } });

/** One run: 8 agents (a lead and 7 it invokes), 249 model and tool calls each: 2,000 spans. */
function bigRun(startMs: number) {
  const traceId = hex(16);
  const spans: object[] = [];
  const ns = (ms: number) => (BigInt(Math.round(ms * 1000)) * 1000n).toString();
  const leadId = hex(8);
  let t = startMs;
  const agentSpan = (id: string, parent: string | undefined, name: string, from: number, to: number) =>
    spans.push({
      traceId,
      spanId: id,
      ...(parent ? { parentSpanId: parent } : {}),
      name: `invoke_agent ${name}`,
      kind: 1,
      startTimeUnixNano: ns(from),
      endTimeUnixNano: ns(to),
      attributes: [str("gen_ai.operation.name", "invoke_agent"), str("gen_ai.agent.name", name)],
      status: {},
    });
  for (let a = 1; a < 8; a++) {
    const id = hex(8);
    const from = (t += 5);
    for (let i = 0; i < 249; i++) {
      const llm = i % 2 === 0;
      const s = (t += 2);
      spans.push({
        traceId,
        spanId: hex(8),
        parentSpanId: id,
        name: llm ? "chat gpt-4o-mini" : "execute_tool search",
        kind: llm ? 3 : 1,
        startTimeUnixNano: ns(s),
        endTimeUnixNano: ns(s + 3),
        attributes: llm
          ? [
              str("gen_ai.operation.name", "chat"),
              str("gen_ai.request.model", "gpt-4o-mini"),
              int("gen_ai.usage.input_tokens", 300),
              int("gen_ai.usage.output_tokens", 40),
            ]
          : [
              str("gen_ai.operation.name", "execute_tool"),
              str("gen_ai.tool.name", "search"),
              str("gen_ai.tool.call.arguments", JSON.stringify({ q: `query ${a}-${i}` })),
            ],
        status: i === 247 && a === 5 ? { code: 2, message: "search backend unavailable" } : {},
      });
    }
    agentSpan(id, leadId, `agent-${a}`, from, (t += 4));
  }
  // The lead's own 249 calls, then its span around everything.
  for (let i = 0; i < 249; i++) {
    const s = (t += 1);
    spans.push({
      traceId,
      spanId: hex(8),
      parentSpanId: leadId,
      name: "chat gpt-4o",
      kind: 3,
      startTimeUnixNano: ns(s),
      endTimeUnixNano: ns(s + 1),
      attributes: [
        str("gen_ai.operation.name", "chat"),
        str("gen_ai.request.model", "gpt-4o"),
        int("gen_ai.usage.input_tokens", 500),
        int("gen_ai.usage.output_tokens", 60),
      ],
      status: {},
    });
  }
  agentSpan(leadId, undefined, "lead", startMs, t + 2);
  spans[spans.length - 1] = {
    ...(spans[spans.length - 1] as object),
    attributes: [...(spans[spans.length - 1] as { attributes: object[] }).attributes, { key: "crux.outcome.success", value: { boolValue: false } }],
  };
  return {
    traceId,
    body: JSON.stringify({
      resourceSpans: [{ resource: { attributes: [str("service.name", "bench-ui")] }, scopeSpans: [{ scope: { name: "bench" }, spans }] }],
    }),
    spanCount: spans.length,
  };
}

function initialJsGzipBytes(): { files: string[]; bytes: number } {
  const dist = path.join(repoRoot, "services/web/dist");
  const html = readFileSync(path.join(dist, "index.html"), "utf8");
  const files = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
  const bytes = files.reduce((sum, f) => sum + gzipSync(readFileSync(path.join(dist, f))).length, 0);
  return { files, bytes };
}

/**
 * Runs in the page: waits for the views and the run's six API answers, selects a bar, times it.
 * Plain JavaScript text: tsx's transform adds helpers to functions that would not exist in the page.
 */
const inPageRunView = String.raw`(async () => {
  let longestTaskMs = 0;
  new PerformanceObserver((l) => { for (const e of l.getEntries()) longestTaskMs = Math.max(longestTaskMs, e.duration); }).observe({ type: "longtask", buffered: true });
  const frame = () => new Promise((r) => requestAnimationFrame(() => r(null)));
  const apiEnds = () => performance.getEntriesByType("resource")
    .filter((e) => /\/api\/v1\/traces\/[0-9a-f]{32}(\/(findings|attribution|trajectories|verdicts|scores))?$/.test(new URL(e.name).pathname))
    .map((e) => e.responseEnd);
  while (!(document.querySelector(".tree-row") && document.querySelector("g.node") && document.querySelector(".tl-bar") && apiEnds().length >= 6)) await frame();
  const bar = document.querySelectorAll(".tl-bar")[40];
  const spanId = bar.dataset.spanId;
  bar.click();
  while (!document.querySelector('.tree-row[data-span-id="' + spanId + '"][aria-selected="true"]')) await frame();
  await frame();
  return { interactiveMs: performance.now() - Math.max(...apiEnds()), longestTaskMs };
})()`;

const listScrollStep = `(async () => {
  const el = document.querySelector("[data-testid=runs-scroll]");
  for (let i = 0; i < 10; i++) {
    el.scrollTop += 400;
    await new Promise((r) => requestAnimationFrame(() => r(null)));
  }
  const last = [...document.querySelectorAll("[role=row][data-index]")].map((r) => Number(r.dataset.index));
  return {
    bottom: el.scrollTop + el.clientHeight >= el.scrollHeight - 2,
    lastIndex: Math.max(...last),
    rows: Number(document.querySelector(".runs-table").getAttribute("aria-rowcount")) - 1,
  };
})()`;

const watchLongTasks = `(() => {
  window.longTasks = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.longTasks.push(e.duration); }).observe({ type: "longtask" });
})()`;

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  dur?: number;
  tdur?: number;
  ts?: number;
  args?: { name?: string };
}
type TraceFile = { traceEvents: TraceEvent[] } | TraceEvent[];

/** The renderer main thread's tasks in a Chromium trace: how many are long by wall and by thread time. */
function mainThreadTasks(file: TraceFile) {
  const events = Array.isArray(file) ? file : file.traceEvents;
  const main = events.find((e) => e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain");
  const tasks = events.filter((e) => main !== undefined && e.pid === main.pid && e.tid === main.tid && e.ph === "X" && e.name === "RunTask");
  const ms = (us: number | undefined) => (us ?? 0) / 1000;
  const first = Math.min(...tasks.map((t) => t.ts ?? 0));
  const last = Math.max(...tasks.map((t) => (t.ts ?? 0) + (t.dur ?? 0)));
  return {
    overWall: tasks.filter((t) => ms(t.dur) > 50).length,
    overThread: tasks.filter((t) => ms(t.tdur) > 50).length,
    longestWallMs: Math.max(0, ...tasks.map((t) => ms(t.dur))),
    longestThreadMs: Math.max(0, ...tasks.map((t) => ms(t.tdur))),
    threadMsPerSecond: tasks.reduce((sum, t) => sum + ms(t.tdur), 0) / Math.max(1e-9, (last - first) / 1e6),
  };
}

async function main() {
  const executablePath = chromiumPath();
  if (!executablePath) {
    console.log(noChromiumLine);
    return;
  }
  const js = initialJsGzipBytes();
  const loadAtStart = loadavg()[0]!;
  const dataDir = tempDataDir();
  const service = await startService(dataDir, {
    CRUX_AUTH: "false",
    CRUX_SETTLE_DELAY_MS: "600000",
    CRUX_SWEEP_QUIET_MS: "600000",
    CRUX_SETTLE_ROOT_DELAY_MS: "100",
  });
  const browser = await chromium.launch({ executablePath, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
  try {
    const run = bigRun(Date.now() - 120_000);
    await postOtlpJson(service.otlpUrl, run.body);
    for (let i = 0; i < 20; i++) await postOtlpJson(service.otlpUrl, orphanRuns(500, Date.now() - 200_000 - i * 500_000, "bench-list"));
    await eventually(async () => ((await apiGet(service.apiUrl, `/traces/${run.traceId}/scores`)).scored ? true : undefined), 120_000);

    // 1. The run view, measured in the page: from the last of the run's API answers to the graph,
    // timeline and tree drawn, a click on a timeline bar, and that span selected in the tree.
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    const samples: number[] = [];
    let longest = 0;
    for (let i = 0; i < 3; i++) {
      await page.goto(`${service.uiUrl}runs/${run.traceId}`, { waitUntil: "commit" });
      const r = (await page.evaluate(inPageRunView)) as { interactiveMs: number; longestTaskMs: number };
      samples.push(r.interactiveMs);
      longest = Math.max(longest, r.longestTaskMs);
    }

    // 2. The runs list, scrolled through 10,000 runs.
    const scrollList = async (traced = false): Promise<{ rows: number; tasks: number[]; seconds: number; trace: Buffer | null }> => {
      const list = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
      await list.goto(`${service.uiUrl}runs?service=bench-list`);
      await list.locator("[role=row][data-trace-id]").first().waitFor();
      await list.evaluate(watchLongTasks);
      if (traced) await browser.startTracing(list, { categories: ["disabled-by-default-devtools.timeline"] });
      const started = Date.now();
      let state: { bottom: boolean; lastIndex: number; rows: number };
      for (;;) {
        state = (await list.evaluate(listScrollStep)) as typeof state;
        if (state.lastIndex >= 9_999) break;
        if (Date.now() - started > 300_000) throw new Error(`scrolled only to row ${state.lastIndex} of ${state.rows} in 5 minutes`);
        if (state.bottom) await list.waitForTimeout(50);
      }
      const rows = state.rows;
      const seconds = (Date.now() - started) / 1000;
      const trace = traced ? await browser.stopTracing() : null;
      const tasks = (await list.evaluate("window.longTasks")) as number[];
      await list.close();
      return { rows, tasks, seconds, trace };
    };
    const { rows, tasks, seconds: scrollSeconds } = await scrollList();
    // The same scroll again on a fresh page, traced: each main-thread task's thread time next to its wall time
    // tells the page's own work from the time the renderer waited for a core (the machine is shared).
    const traced = await scrollList(true);
    const work = mainThreadTasks(JSON.parse((traced.trace as Buffer).toString("utf8")) as TraceFile);

    const median = [...samples].sort((a, b) => a - b)[1]!;
    console.log(
      [
        "",
        `UI benchmark (Chromium ${browser.version()}, service: pnpm start on PGlite; ${cpus().length} cores, load average ${loadAtStart.toFixed(1)} at the start and ${loadavg()[0]!.toFixed(1)} at the end: task durations are wall-clock and grow with the load)`,
        `  run view, ${run.spanCount} spans, 8 agents: interactive ${median.toFixed(0)} ms after its data arrived (median of 3: ${samples.map((s) => s.toFixed(0)).join(", ")} ms; bar < 1,000 ms); longest task while opening ${longest.toFixed(0)} ms`,
        `  runs list, ${rows.toLocaleString("en-US")} rows scrolled in ${scrollSeconds.toFixed(1)} s: ${tasks.length} tasks over 50 ms, longest ${tasks.length ? Math.max(...tasks).toFixed(0) : "none"}${tasks.length ? " ms" : ""} (bar: none over 50 ms)`,
        `  the same scroll traced: ${work.overWall} tasks over 50 ms of wall time, ${work.overThread} over 50 ms of thread time; longest ${work.longestWallMs.toFixed(0)} ms wall, ${work.longestThreadMs.toFixed(0)} ms thread; the renderer's main thread worked ${work.threadMsPerSecond.toFixed(0)} ms per second of scrolling`,
        `  initial JavaScript: ${(js.bytes / 1024).toFixed(1)} KB gzipped (${js.files.join(", ")}; bar < 300 KB); each page's own chunk is loaded when it is first opened`,
        "",
      ].join("\n"),
    );
  } finally {
    await browser.close();
    await service.stop();
    removeDir(dataDir);
  }
}

await main();
