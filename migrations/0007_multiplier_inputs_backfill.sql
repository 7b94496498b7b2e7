-- Backfill of the baseline-independent multiplier inputs added by 0006, from trace_scores,
-- with the same expressions as rollups.ts (taskRollup / traceRollup cells). Hour of a start:
-- start_ns - ((start_ns % 3600000000000) + 3600000000000) % 3600000000000.
UPDATE "score_task_hourly" c SET token_sum = x.token_sum, cost_sum = x.cost_sum, cost_n = x.cost_n
FROM (
  SELECT s.project_id, (s.start_ns - ((s.start_ns % 3600000000000) + 3600000000000) % 3600000000000) AS hour_ns, s.service_name,
    coalesce(s.task_id, 'trace:' || s.trace_id) AS task_key, s.task_id IS NOT NULL AS has_task,
    coalesce(sum(s.total_tokens) FILTER (WHERE NOT s.is_baseline), 0)::numeric AS token_sum,
    coalesce(sum(s.cost_usd::numeric) FILTER (WHERE NOT s.is_baseline), 0) AS cost_sum,
    count(s.cost_usd) FILTER (WHERE NOT s.is_baseline) AS cost_n
  FROM trace_scores s GROUP BY 1, 2, 3, 4, 5
) x
WHERE c.project_id = x.project_id AND c.hour_ns = x.hour_ns AND c.service_name IS NOT DISTINCT FROM x.service_name
  AND c.task_key = x.task_key AND c.has_task = x.has_task;--> statement-breakpoint
UPDATE "score_trace_hourly" c SET notask_runs = x.notask_runs, notask_token_sum = x.notask_token_sum, notask_cost_sum = x.notask_cost_sum, notask_cost_n = x.notask_cost_n
FROM (
  SELECT s.project_id, (s.start_ns - ((s.start_ns % 3600000000000) + 3600000000000) % 3600000000000) AS hour_ns, s.service_name,
    count(*) FILTER (WHERE NOT s.is_baseline AND s.task_id IS NULL) AS notask_runs,
    coalesce(sum(s.total_tokens) FILTER (WHERE NOT s.is_baseline AND s.task_id IS NULL), 0)::numeric AS notask_token_sum,
    coalesce(sum(s.cost_usd::numeric) FILTER (WHERE NOT s.is_baseline AND s.task_id IS NULL), 0) AS notask_cost_sum,
    count(s.cost_usd) FILTER (WHERE NOT s.is_baseline AND s.task_id IS NULL) AS notask_cost_n
  FROM trace_scores s GROUP BY 1, 2, 3
) x
WHERE c.project_id = x.project_id AND c.hour_ns = x.hour_ns AND c.service_name IS NOT DISTINCT FROM x.service_name;
