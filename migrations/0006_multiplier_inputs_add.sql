ALTER TABLE "score_task_hourly" ADD COLUMN "token_sum" numeric DEFAULT '0' NOT NULL;--> statement-breakpoint
ALTER TABLE "score_task_hourly" ADD COLUMN "cost_sum" numeric DEFAULT '0' NOT NULL;--> statement-breakpoint
ALTER TABLE "score_task_hourly" ADD COLUMN "cost_n" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "score_trace_hourly" ADD COLUMN "notask_runs" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "score_trace_hourly" ADD COLUMN "notask_token_sum" numeric DEFAULT '0' NOT NULL;--> statement-breakpoint
ALTER TABLE "score_trace_hourly" ADD COLUMN "notask_cost_sum" numeric DEFAULT '0' NOT NULL;--> statement-breakpoint
ALTER TABLE "score_trace_hourly" ADD COLUMN "notask_cost_n" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "trace_scores_project_baseline_task_idx" ON "trace_scores" USING btree ("project_id","task_id") WHERE "trace_scores"."is_baseline";