CREATE TABLE "score_agent_hourly" (
	"project_id" text NOT NULL,
	"hour_ns" bigint NOT NULL,
	"service_name" text,
	"agent" text NOT NULL,
	"usage_rows" bigint NOT NULL,
	"input_tokens" numeric NOT NULL,
	"output_tokens" numeric NOT NULL,
	"cached_tokens" numeric NOT NULL,
	"cost_usd" numeric NOT NULL,
	"cost_rows" bigint NOT NULL,
	"llm_calls" numeric NOT NULL,
	"tool_calls" numeric NOT NULL,
	"spans" numeric NOT NULL,
	"errors" numeric NOT NULL,
	"scored_traces" bigint NOT NULL,
	"failed_traces" bigint NOT NULL,
	CONSTRAINT "score_agent_hourly_cell_uq" UNIQUE NULLS NOT DISTINCT("project_id","hour_ns","service_name","agent")
);
--> statement-breakpoint
CREATE TABLE "score_finding_hourly" (
	"project_id" text NOT NULL,
	"hour_ns" bigint NOT NULL,
	"service_name" text,
	"agent" text,
	"kind" text NOT NULL,
	"k1" text NOT NULL,
	"k2" text NOT NULL,
	"findings" bigint NOT NULL,
	"traces" bigint NOT NULL,
	"failed_traces" bigint NOT NULL,
	CONSTRAINT "score_finding_hourly_cell_uq" UNIQUE NULLS NOT DISTINCT("project_id","hour_ns","service_name","agent","kind","k1","k2")
);
--> statement-breakpoint
CREATE TABLE "score_milestone_hourly" (
	"project_id" text NOT NULL,
	"hour_ns" bigint NOT NULL,
	"service_name" text,
	"milestone_id" text,
	"traces" bigint NOT NULL,
	"passed" bigint NOT NULL,
	CONSTRAINT "score_milestone_hourly_cell_uq" UNIQUE NULLS NOT DISTINCT("project_id","hour_ns","service_name","milestone_id")
);
--> statement-breakpoint
CREATE TABLE "score_task_hourly" (
	"project_id" text NOT NULL,
	"hour_ns" bigint NOT NULL,
	"service_name" text,
	"task_key" text NOT NULL,
	"has_task" boolean NOT NULL,
	"trace_rows" bigint NOT NULL,
	"runs" bigint NOT NULL,
	"baseline_runs" bigint NOT NULL,
	"token_value_sum" numeric NOT NULL,
	"token_known" bigint NOT NULL,
	"token_observed_sum" numeric NOT NULL,
	"token_observed_n" bigint NOT NULL,
	"token_baseline_sum" numeric NOT NULL,
	"token_baseline_n" bigint NOT NULL,
	"token_src_run" bigint NOT NULL,
	"token_src_configured" bigint NOT NULL,
	"token_src_unknown" bigint NOT NULL,
	"cost_value_sum" numeric NOT NULL,
	"cost_known" bigint NOT NULL,
	"cost_observed_sum" numeric NOT NULL,
	"cost_observed_n" bigint NOT NULL,
	"cost_baseline_sum" numeric NOT NULL,
	"cost_baseline_n" bigint NOT NULL,
	"cost_src_run" bigint NOT NULL,
	"cost_src_configured" bigint NOT NULL,
	"cost_src_unknown" bigint NOT NULL,
	"outcome_n" bigint NOT NULL,
	"outcome_ok" bigint NOT NULL,
	CONSTRAINT "score_task_hourly_cell_uq" UNIQUE NULLS NOT DISTINCT("project_id","hour_ns","service_name","task_key","has_task")
);
--> statement-breakpoint
CREATE TABLE "score_trace_hourly" (
	"project_id" text NOT NULL,
	"hour_ns" bigint NOT NULL,
	"service_name" text,
	"traces" bigint NOT NULL,
	"failed" bigint NOT NULL,
	"agent_traces" bigint NOT NULL,
	"outcome_runs" bigint NOT NULL,
	"outcome_ok" bigint NOT NULL,
	"outcome_unknown" bigint NOT NULL,
	"runs" bigint NOT NULL,
	"baseline_runs" bigint NOT NULL,
	"token_value_sum" numeric NOT NULL,
	"token_known" bigint NOT NULL,
	"token_observed_sum" numeric NOT NULL,
	"token_observed_n" bigint NOT NULL,
	"token_baseline_sum" numeric NOT NULL,
	"token_baseline_n" bigint NOT NULL,
	"token_src_run" bigint NOT NULL,
	"token_src_configured" bigint NOT NULL,
	"token_src_unknown" bigint NOT NULL,
	"cost_value_sum" numeric NOT NULL,
	"cost_known" bigint NOT NULL,
	"cost_observed_sum" numeric NOT NULL,
	"cost_observed_n" bigint NOT NULL,
	"cost_baseline_sum" numeric NOT NULL,
	"cost_baseline_n" bigint NOT NULL,
	"cost_src_run" bigint NOT NULL,
	"cost_src_configured" bigint NOT NULL,
	"cost_src_unknown" bigint NOT NULL,
	"milestone_traces" bigint NOT NULL,
	"credit_sum" numeric NOT NULL,
	"credit_n" bigint NOT NULL,
	"full_sum" bigint NOT NULL,
	"full_n" bigint NOT NULL,
	"furthest_sum" numeric NOT NULL,
	"furthest_n" bigint NOT NULL,
	CONSTRAINT "score_trace_hourly_cell_uq" UNIQUE NULLS NOT DISTINCT("project_id","hour_ns","service_name")
);
--> statement-breakpoint
CREATE INDEX "score_task_hourly_task_idx" ON "score_task_hourly" USING btree ("project_id","task_key","hour_ns");--> statement-breakpoint
-- Backfill from the score tables already stored (same SELECTs as rebuildScoreRollups in packages/db/src/scores/rollups.ts).
INSERT INTO "score_agent_hourly" (project_id, hour_ns, service_name, agent, usage_rows, input_tokens, output_tokens, cached_tokens, cost_usd, cost_rows, llm_calls, tool_calls, spans, errors, scored_traces, failed_traces) SELECT n.project_id, n.hour_ns, n.service_name, n.agent, n.usage_rows, n.input_tokens, n.output_tokens, n.cached_tokens, n.cost_usd, n.cost_rows, n.llm_calls, n.tool_calls, n.spans, n.errors, n.scored_traces, n.failed_traces FROM (
  SELECT a.project_id, (a.start_ns - ((a.start_ns % 3600000000000) + 3600000000000) % 3600000000000) AS hour_ns, a.service_name, a.agent,
  count(*) AS usage_rows, coalesce(sum(a.input_tokens), 0)::numeric AS input_tokens,
  coalesce(sum(a.output_tokens), 0)::numeric AS output_tokens, coalesce(sum(a.cached_tokens), 0)::numeric AS cached_tokens,
  coalesce(sum(a.cost_usd::numeric), 0) AS cost_usd, count(a.cost_usd) AS cost_rows,
  coalesce(sum(a.llm_calls), 0)::numeric AS llm_calls, coalesce(sum(a.tool_calls), 0)::numeric AS tool_calls,
  coalesce(sum(a.spans), 0)::numeric AS spans, coalesce(sum(a.errors), 0)::numeric AS errors,
  count(s.trace_id) AS scored_traces, count(*) FILTER (WHERE s.success = false) AS failed_traces
  FROM trace_agent_usage a LEFT JOIN trace_scores s ON s.project_id = a.project_id AND s.trace_id = a.trace_id
  WHERE true GROUP BY 1, 2, 3, 4) n;--> statement-breakpoint
INSERT INTO "score_trace_hourly" (project_id, hour_ns, service_name, traces, failed, agent_traces, outcome_runs, outcome_ok, outcome_unknown, runs, baseline_runs, token_value_sum, token_known, token_observed_sum, token_observed_n, token_baseline_sum, token_baseline_n, token_src_run, token_src_configured, token_src_unknown, cost_value_sum, cost_known, cost_observed_sum, cost_observed_n, cost_baseline_sum, cost_baseline_n, cost_src_run, cost_src_configured, cost_src_unknown, milestone_traces, credit_sum, credit_n, full_sum, full_n, furthest_sum, furthest_n) SELECT n.project_id, n.hour_ns, n.service_name, n.traces, n.failed, n.agent_traces, n.outcome_runs, n.outcome_ok, n.outcome_unknown, n.runs, n.baseline_runs, n.token_value_sum, n.token_known, n.token_observed_sum, n.token_observed_n, n.token_baseline_sum, n.token_baseline_n, n.token_src_run, n.token_src_configured, n.token_src_unknown, n.cost_value_sum, n.cost_known, n.cost_observed_sum, n.cost_observed_n, n.cost_baseline_sum, n.cost_baseline_n, n.cost_src_run, n.cost_src_configured, n.cost_src_unknown, n.milestone_traces, n.credit_sum, n.credit_n, n.full_sum, n.full_n, n.furthest_sum, n.furthest_n FROM (
  SELECT s.project_id, (s.start_ns - ((s.start_ns % 3600000000000) + 3600000000000) % 3600000000000) AS hour_ns, s.service_name,
  count(*) AS traces, count(*) FILTER (WHERE s.success = false) AS failed,
  count(*) FILTER (WHERE EXISTS (SELECT 1 FROM trace_agent_usage au WHERE au.project_id = s.project_id AND au.trace_id = s.trace_id)) AS agent_traces,
  count(*) FILTER (WHERE s.success IS NOT NULL) AS outcome_runs, count(*) FILTER (WHERE s.success) AS outcome_ok,
  count(*) FILTER (WHERE s.success IS NULL) AS outcome_unknown,
  count(*) FILTER (WHERE NOT s.is_baseline) AS runs, count(*) FILTER (WHERE s.is_baseline) AS baseline_runs,
  coalesce(sum(s.token_multiplier::numeric) FILTER (WHERE NOT s.is_baseline), 0) AS token_value_sum,
  count(s.token_multiplier) FILTER (WHERE NOT s.is_baseline) AS token_known,
  coalesce(sum(s.token_observed::numeric) FILTER (WHERE NOT s.is_baseline AND s.token_multiplier IS NOT NULL), 0) AS token_observed_sum,
  count(s.token_observed) FILTER (WHERE NOT s.is_baseline AND s.token_multiplier IS NOT NULL) AS token_observed_n,
  coalesce(sum(s.token_baseline::numeric) FILTER (WHERE NOT s.is_baseline AND s.token_multiplier IS NOT NULL), 0) AS token_baseline_sum,
  count(s.token_baseline) FILTER (WHERE NOT s.is_baseline AND s.token_multiplier IS NOT NULL) AS token_baseline_n,
  count(*) FILTER (WHERE NOT s.is_baseline AND s.token_baseline_source = 'baseline_run') AS token_src_run,
  count(*) FILTER (WHERE NOT s.is_baseline AND s.token_baseline_source = 'configured') AS token_src_configured,
  count(*) FILTER (WHERE NOT s.is_baseline AND s.token_baseline_source = 'unknown') AS token_src_unknown, 
  coalesce(sum(s.cost_multiplier::numeric) FILTER (WHERE NOT s.is_baseline), 0) AS cost_value_sum,
  count(s.cost_multiplier) FILTER (WHERE NOT s.is_baseline) AS cost_known,
  coalesce(sum(s.cost_observed::numeric) FILTER (WHERE NOT s.is_baseline AND s.cost_multiplier IS NOT NULL), 0) AS cost_observed_sum,
  count(s.cost_observed) FILTER (WHERE NOT s.is_baseline AND s.cost_multiplier IS NOT NULL) AS cost_observed_n,
  coalesce(sum(s.cost_baseline::numeric) FILTER (WHERE NOT s.is_baseline AND s.cost_multiplier IS NOT NULL), 0) AS cost_baseline_sum,
  count(s.cost_baseline) FILTER (WHERE NOT s.is_baseline AND s.cost_multiplier IS NOT NULL) AS cost_baseline_n,
  count(*) FILTER (WHERE NOT s.is_baseline AND s.cost_baseline_source = 'baseline_run') AS cost_src_run,
  count(*) FILTER (WHERE NOT s.is_baseline AND s.cost_baseline_source = 'configured') AS cost_src_configured,
  count(*) FILTER (WHERE NOT s.is_baseline AND s.cost_baseline_source = 'unknown') AS cost_src_unknown,
  count(s.milestone_set_id) AS milestone_traces,
  coalesce(sum(s.milestone_partial_credit::numeric) FILTER (WHERE s.milestone_set_id IS NOT NULL), 0) AS credit_sum,
  count(s.milestone_partial_credit) FILTER (WHERE s.milestone_set_id IS NOT NULL) AS credit_n,
  count(*) FILTER (WHERE s.milestone_set_id IS NOT NULL AND s.milestone_full_success) AS full_sum,
  count(s.milestone_full_success) FILTER (WHERE s.milestone_set_id IS NOT NULL) AS full_n,
  coalesce(sum(s.milestone_furthest_index) FILTER (WHERE s.milestone_set_id IS NOT NULL), 0)::numeric AS furthest_sum,
  count(s.milestone_furthest_index) FILTER (WHERE s.milestone_set_id IS NOT NULL) AS furthest_n
  FROM trace_scores s WHERE true GROUP BY 1, 2, 3) n;--> statement-breakpoint
INSERT INTO "score_task_hourly" (project_id, hour_ns, service_name, task_key, has_task, trace_rows, runs, baseline_runs, token_value_sum, token_known, token_observed_sum, token_observed_n, token_baseline_sum, token_baseline_n, token_src_run, token_src_configured, token_src_unknown, cost_value_sum, cost_known, cost_observed_sum, cost_observed_n, cost_baseline_sum, cost_baseline_n, cost_src_run, cost_src_configured, cost_src_unknown, outcome_n, outcome_ok) SELECT n.project_id, n.hour_ns, n.service_name, n.task_key, n.has_task, n.trace_rows, n.runs, n.baseline_runs, n.token_value_sum, n.token_known, n.token_observed_sum, n.token_observed_n, n.token_baseline_sum, n.token_baseline_n, n.token_src_run, n.token_src_configured, n.token_src_unknown, n.cost_value_sum, n.cost_known, n.cost_observed_sum, n.cost_observed_n, n.cost_baseline_sum, n.cost_baseline_n, n.cost_src_run, n.cost_src_configured, n.cost_src_unknown, n.outcome_n, n.outcome_ok FROM (
  SELECT s.project_id, (s.start_ns - ((s.start_ns % 3600000000000) + 3600000000000) % 3600000000000) AS hour_ns, s.service_name,
  coalesce(s.task_id, 'trace:' || s.trace_id) AS task_key, s.task_id IS NOT NULL AS has_task,
  count(*) AS trace_rows, count(*) FILTER (WHERE NOT s.is_baseline) AS runs, count(*) FILTER (WHERE s.is_baseline) AS baseline_runs,
  coalesce(sum(s.token_multiplier::numeric) FILTER (WHERE NOT s.is_baseline), 0) AS token_value_sum,
  count(s.token_multiplier) FILTER (WHERE NOT s.is_baseline) AS token_known,
  coalesce(sum(s.token_observed::numeric) FILTER (WHERE NOT s.is_baseline AND s.token_multiplier IS NOT NULL), 0) AS token_observed_sum,
  count(s.token_observed) FILTER (WHERE NOT s.is_baseline AND s.token_multiplier IS NOT NULL) AS token_observed_n,
  coalesce(sum(s.token_baseline::numeric) FILTER (WHERE NOT s.is_baseline AND s.token_multiplier IS NOT NULL), 0) AS token_baseline_sum,
  count(s.token_baseline) FILTER (WHERE NOT s.is_baseline AND s.token_multiplier IS NOT NULL) AS token_baseline_n,
  count(*) FILTER (WHERE NOT s.is_baseline AND s.token_baseline_source = 'baseline_run') AS token_src_run,
  count(*) FILTER (WHERE NOT s.is_baseline AND s.token_baseline_source = 'configured') AS token_src_configured,
  count(*) FILTER (WHERE NOT s.is_baseline AND s.token_baseline_source = 'unknown') AS token_src_unknown, 
  coalesce(sum(s.cost_multiplier::numeric) FILTER (WHERE NOT s.is_baseline), 0) AS cost_value_sum,
  count(s.cost_multiplier) FILTER (WHERE NOT s.is_baseline) AS cost_known,
  coalesce(sum(s.cost_observed::numeric) FILTER (WHERE NOT s.is_baseline AND s.cost_multiplier IS NOT NULL), 0) AS cost_observed_sum,
  count(s.cost_observed) FILTER (WHERE NOT s.is_baseline AND s.cost_multiplier IS NOT NULL) AS cost_observed_n,
  coalesce(sum(s.cost_baseline::numeric) FILTER (WHERE NOT s.is_baseline AND s.cost_multiplier IS NOT NULL), 0) AS cost_baseline_sum,
  count(s.cost_baseline) FILTER (WHERE NOT s.is_baseline AND s.cost_multiplier IS NOT NULL) AS cost_baseline_n,
  count(*) FILTER (WHERE NOT s.is_baseline AND s.cost_baseline_source = 'baseline_run') AS cost_src_run,
  count(*) FILTER (WHERE NOT s.is_baseline AND s.cost_baseline_source = 'configured') AS cost_src_configured,
  count(*) FILTER (WHERE NOT s.is_baseline AND s.cost_baseline_source = 'unknown') AS cost_src_unknown,
  count(*) FILTER (WHERE s.success IS NOT NULL) AS outcome_n, count(*) FILTER (WHERE s.success) AS outcome_ok
  FROM trace_scores s WHERE true GROUP BY 1, 2, 3, 4, 5) n;--> statement-breakpoint
INSERT INTO "score_milestone_hourly" (project_id, hour_ns, service_name, milestone_id, traces, passed) SELECT n.project_id, n.hour_ns, n.service_name, n.milestone_id, n.traces, n.passed FROM (
  SELECT s.project_id, (s.start_ns - ((s.start_ns % 3600000000000) + 3600000000000) % 3600000000000) AS hour_ns, s.service_name, m->>'id' AS milestone_id,
  count(*) AS traces, count(*) FILTER (WHERE (m->>'passed')::boolean) AS passed
  FROM trace_scores s, jsonb_array_elements(s.milestone_detail) AS m
  WHERE true AND s.milestone_detail IS NOT NULL GROUP BY 1, 2, 3, 4) n;--> statement-breakpoint
INSERT INTO "score_finding_hourly" (project_id, hour_ns, service_name, agent, kind, k1, k2, findings, traces, failed_traces) SELECT n.project_id, n.hour_ns, n.service_name, n.agent, n.kind, n.k1, n.k2, n.findings, n.traces, n.failed_traces FROM (
  SELECT f.project_id, (f.start_ns - ((f.start_ns % 3600000000000) + 3600000000000) % 3600000000000) AS hour_ns, f.service_name,
  NULL::text AS agent, 'mode' AS kind, f.mode AS k1, '' AS k2, count(*) AS findings, count(*) FILTER (WHERE f.first_of_mode) AS traces,
  count(*) FILTER (WHERE f.first_of_mode AND f.success = false) AS failed_traces
  FROM trace_findings f WHERE true GROUP BY 1, 2, 3, 4, 5, 6, 7
  UNION ALL
  SELECT f.project_id, (f.start_ns - ((f.start_ns % 3600000000000) + 3600000000000) % 3600000000000) AS hour_ns, f.service_name,
  f.agent AS agent, 'mode' AS kind, f.mode AS k1, '' AS k2, count(*) AS findings, count(*) FILTER (WHERE f.first_of_agent_mode) AS traces,
  count(*) FILTER (WHERE f.first_of_agent_mode AND f.success = false) AS failed_traces
  FROM trace_findings f WHERE true AND f.agent IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6, 7
  UNION ALL
  SELECT f.project_id, (f.start_ns - ((f.start_ns % 3600000000000) + 3600000000000) % 3600000000000) AS hour_ns, f.service_name,
  NULL::text AS agent, 'category' AS kind, f.category AS k1, '' AS k2, count(*) AS findings, count(*) FILTER (WHERE f.first_of_category) AS traces, 0 AS failed_traces
  FROM trace_findings f WHERE true GROUP BY 1, 2, 3, 4, 5, 6, 7
  UNION ALL
  SELECT f.project_id, (f.start_ns - ((f.start_ns % 3600000000000) + 3600000000000) % 3600000000000) AS hour_ns, f.service_name,
  f.agent AS agent, 'category' AS kind, f.category AS k1, '' AS k2, count(*) AS findings, count(DISTINCT f.trace_id) AS traces, 0 AS failed_traces
  FROM trace_findings f WHERE true AND f.agent IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6, 7
  UNION ALL
  SELECT f.project_id, (f.start_ns - ((f.start_ns % 3600000000000) + 3600000000000) % 3600000000000) AS hour_ns, f.service_name,
  NULL::text AS agent, 'source' AS kind, f.mode AS k1, f.source AS k2, count(*) AS findings, count(DISTINCT f.trace_id) AS traces, 0 AS failed_traces
  FROM trace_findings f WHERE true GROUP BY 1, 2, 3, 4, 5, 6, 7
  UNION ALL
  SELECT f.project_id, (f.start_ns - ((f.start_ns % 3600000000000) + 3600000000000) % 3600000000000) AS hour_ns, f.service_name,
  f.agent AS agent, 'source' AS kind, f.mode AS k1, f.source AS k2, count(*) AS findings, count(DISTINCT f.trace_id) AS traces, 0 AS failed_traces
  FROM trace_findings f WHERE true AND f.agent IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6, 7) n;
