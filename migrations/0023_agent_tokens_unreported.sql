ALTER TABLE "score_agent_hourly" ADD COLUMN "tokens_unreported_rows" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "score_agent_hourly_delta" ADD COLUMN "tokens_unreported_rows" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Hand-written backfill: the traces already folded into the agent rollup get their count of
-- rows without reported tokens, as rollups.ts agentRollup counts them, appended as delta rows
-- (every other measure 0) that the scheduled compaction folds in. Pending traces are left to
-- their fold, which counts them with the new measure.
INSERT INTO "score_agent_hourly_delta" ("project_id", "hour_ns", "service_name", "agent", "usage_rows", "input_tokens", "output_tokens", "cached_tokens", "cost_usd", "cost_rows", "llm_calls", "tool_calls", "spans", "errors", "scored_traces", "failed_traces", "tokens_unreported_rows")
SELECT a.project_id, (a.start_ns - ((a.start_ns % 3600000000000) + 3600000000000) % 3600000000000), a.service_name, a.agent, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, count(*)
FROM trace_agent_usage a LEFT JOIN trace_scores s ON s.project_id = a.project_id AND s.trace_id = a.trace_id
WHERE NOT a.tokens_reported AND s.is_baseline IS NOT TRUE
  AND NOT EXISTS (SELECT 1 FROM trace_scores xs WHERE xs.metrics_excluded AND xs.project_id = a.project_id AND xs.trace_id = a.trace_id)
  AND NOT EXISTS (SELECT 1 FROM score_rollup_pending p WHERE p.project_id = a.project_id AND p.trace_id = a.trace_id)
GROUP BY 1, 2, 3, 4;
