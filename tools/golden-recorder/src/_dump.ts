const mod = await import(process.argv[2]);
const fn = mod[process.argv[3]];
const json = await fn();
const fs = await import("node:fs");
fs.writeFileSync(process.argv[4], JSON.stringify(json, null, 2));
const spans = json.resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans.map((sp: any) => ({...sp, scope: s.scope?.name}))));
const byId = new Map(spans.map((s: any) => [s.spanId, s]));
const depth = (s: any): number => (s.parentSpanId && byId.has(s.parentSpanId) ? 1 + depth(byId.get(s.parentSpanId)) : 0);
spans.sort((a: any, b: any) => Number(BigInt(a.startTimeUnixNano) - BigInt(b.startTimeUnixNano)));
const ordered: any[] = [];
const visit = (s: any) => { ordered.push(s); for (const c of spans.filter((c: any) => c.parentSpanId === s.spanId)) visit(c); };
for (const r of spans.filter((s: any) => !s.parentSpanId || !byId.has(s.parentSpanId))) visit(r);
for (const s of ordered) {
  const keys = (s.attributes ?? []).filter((a: any) => /token|usage|agent|tool|functionId|span.kind|model|handoff|graph.node|operation|langgraph|error|mastra/i.test(a.key) && !/prompt\.tools|input_messages|output_messages|llm\.tools/.test(a.key)).map((a: any) => `${a.key}=${JSON.stringify(Object.values(a.value)[0]).slice(0, 80)}`);
  console.log(`${"  ".repeat(depth(s))}${s.name} [${s.scope}] status=${s.status?.code ?? 0}${s.status?.message ? ":" + s.status.message.slice(0, 80) : ""} ev=${(s.events ?? []).map((e: any) => e.name).join(",")}\n${"  ".repeat(depth(s))}    ${keys.join(" ")}`);
}
console.log("spans:", spans.length);
