/**
 * Runs every scenario and, with UPDATE_GOLDEN=1, writes each OTLP/JSON export to
 * packages/otlp/test/golden/<framework>-<YYYY-MM-DD>/export.json (today's date,
 * or GOLDEN_DATE=YYYY-MM-DD to overwrite an existing recording).
 * Without UPDATE_GOLDEN it only runs the scenarios and prints span counts.
 * GOLDEN_FRAMEWORKS=openai-agents,mastra restricts the run to those scenarios, so
 * re-recording one framework leaves the other exports untouched.
 *
 *   UPDATE_GOLDEN=1 npx tsx tools/golden-recorder/src/record-all.ts
 *   UPDATE_GOLDEN=1 GOLDEN_FRAMEWORKS=openai-agents npx tsx tools/golden-recorder/src/record-all.ts
 *
 * expected.json beside each export is written by hand and never touched here.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { recordGroupChat } from "./group-chat.ts";
import { recordLangfuse } from "./langfuse.ts";
import { recordLangGraph, recordLangGraphRepeat } from "./langgraph.ts";
import { recordMastra, recordMastraRepeat } from "./mastra.ts";
import { recordOpenAiAgents } from "./openai-agents.ts";
import { allSpans, type ExportJson } from "./otel.ts";
import { selectScenarios } from "./select-scenarios.ts";
import { recordVercelAi } from "./vercel-ai.ts";

export const SCENARIOS: ReadonlyArray<{ framework: string; record: () => Promise<ExportJson> }> = [
  { framework: "vercel-ai", record: recordVercelAi },
  { framework: "openai-agents", record: recordOpenAiAgents },
  { framework: "langgraph", record: recordLangGraph },
  { framework: "mastra", record: recordMastra },
  { framework: "langfuse", record: recordLangfuse },
  { framework: "langgraph-repeat", record: recordLangGraphRepeat },
  { framework: "mastra-repeat", record: recordMastraRepeat },
  { framework: "group-chat", record: recordGroupChat },
];

const goldenRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../packages/otlp/test/golden");

async function main(): Promise<void> {
  const write = process.env.UPDATE_GOLDEN === "1";
  const date = process.env.GOLDEN_DATE ?? new Date().toISOString().slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new Error(`GOLDEN_DATE must be YYYY-MM-DD, got ${date}`);
  for (const { framework, record } of selectScenarios(SCENARIOS, process.env.GOLDEN_FRAMEWORKS)) {
    const json = await record();
    const count = allSpans(json).length;
    if (!write) {
      console.log(`${framework}: ${count} spans (dry run; set UPDATE_GOLDEN=1 to write)`);
      continue;
    }
    const dir = path.join(goldenRoot, `${framework}-${date}`);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "export.json"), JSON.stringify(json, null, 2) + "\n");
    console.log(`${framework}: ${count} spans -> ${path.relative(process.cwd(), path.join(dir, "export.json"))}`);
  }
}

await main();
