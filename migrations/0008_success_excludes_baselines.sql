-- The system's success rate leaves out runs tagged crux.baseline=true (the single-agent
-- reference). packages/db/src/scores/rollups.ts now counts outcomes of system runs only;
-- this recomputes the outcome counts of existing cells with that definition.
UPDATE "score_trace_hourly" h
SET outcome_runs = n.outcome_runs, outcome_ok = n.outcome_ok, outcome_unknown = n.outcome_unknown
FROM (
  SELECT s.project_id, (s.start_ns - ((s.start_ns % 3600000000000) + 3600000000000) % 3600000000000) AS hour_ns, s.service_name,
    count(*) FILTER (WHERE NOT s.is_baseline AND s.success IS NOT NULL) AS outcome_runs,
    count(*) FILTER (WHERE NOT s.is_baseline AND s.success) AS outcome_ok,
    count(*) FILTER (WHERE NOT s.is_baseline AND s.success IS NULL) AS outcome_unknown
  FROM trace_scores s GROUP BY 1, 2, 3
) n
WHERE h.project_id = n.project_id AND h.hour_ns = n.hour_ns AND h.service_name IS NOT DISTINCT FROM n.service_name;
--> statement-breakpoint
UPDATE "score_task_hourly" h
SET outcome_n = n.outcome_n, outcome_ok = n.outcome_ok
FROM (
  SELECT s.project_id, (s.start_ns - ((s.start_ns % 3600000000000) + 3600000000000) % 3600000000000) AS hour_ns, s.service_name,
    coalesce(s.task_id, 'trace:' || s.trace_id) AS task_key, s.task_id IS NOT NULL AS has_task,
    count(*) FILTER (WHERE NOT s.is_baseline AND s.success IS NOT NULL) AS outcome_n,
    count(*) FILTER (WHERE NOT s.is_baseline AND s.success) AS outcome_ok
  FROM trace_scores s GROUP BY 1, 2, 3, 4, 5
) n
WHERE h.project_id = n.project_id AND h.hour_ns = n.hour_ns AND h.service_name IS NOT DISTINCT FROM n.service_name
  AND h.task_key = n.task_key AND h.has_task = n.has_task;
