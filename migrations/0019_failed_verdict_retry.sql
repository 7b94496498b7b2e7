ALTER TABLE "trace_verdicts" ADD COLUMN "attempts" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "trace_verdicts" ADD COLUMN "retry_at" timestamp (3) with time zone;--> statement-breakpoint
-- System metrics leave baseline runs out everywhere (packages/db/src/scores/rollups.ts): the
-- agent, milestone, finding and judge-finding cells and the trace counts no longer count runs
-- tagged crux.baseline=true. Every scored trace is listed as pending again, so readers compute
-- its cells with the new definition until the scheduled compaction folds it (in batches).
DELETE FROM "score_agent_hourly";--> statement-breakpoint
DELETE FROM "score_agent_hourly_delta";--> statement-breakpoint
DELETE FROM "score_trace_hourly";--> statement-breakpoint
DELETE FROM "score_trace_hourly_delta";--> statement-breakpoint
DELETE FROM "score_task_hourly";--> statement-breakpoint
DELETE FROM "score_task_hourly_delta";--> statement-breakpoint
DELETE FROM "score_milestone_hourly";--> statement-breakpoint
DELETE FROM "score_milestone_hourly_delta";--> statement-breakpoint
DELETE FROM "score_finding_hourly";--> statement-breakpoint
DELETE FROM "score_finding_hourly_delta";--> statement-breakpoint
DELETE FROM "score_judge_finding_hourly";--> statement-breakpoint
DELETE FROM "score_judge_finding_hourly_delta";--> statement-breakpoint
INSERT INTO "score_rollup_pending" ("project_id", "trace_id") SELECT "project_id", "trace_id" FROM "trace_scores" ON CONFLICT DO NOTHING;
