CREATE TABLE "score_agent_hourly_delta" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "score_agent_hourly_delta_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
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
	"failed_traces" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "score_finding_hourly_delta" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "score_finding_hourly_delta_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"project_id" text NOT NULL,
	"hour_ns" bigint NOT NULL,
	"service_name" text,
	"agent" text,
	"kind" text NOT NULL,
	"k1" text NOT NULL,
	"k2" text NOT NULL,
	"findings" bigint NOT NULL,
	"traces" bigint NOT NULL,
	"failed_traces" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "score_judge_finding_hourly_delta" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "score_judge_finding_hourly_delta_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"project_id" text NOT NULL,
	"hour_ns" bigint NOT NULL,
	"service_name" text,
	"agent" text,
	"kind" text NOT NULL,
	"k1" text NOT NULL,
	"k2" text NOT NULL,
	"findings" bigint NOT NULL,
	"traces" bigint NOT NULL,
	"extra" bigint NOT NULL,
	"failed_traces" bigint NOT NULL,
	"extra_failed" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "score_milestone_hourly_delta" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "score_milestone_hourly_delta_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"project_id" text NOT NULL,
	"hour_ns" bigint NOT NULL,
	"service_name" text,
	"milestone_id" text,
	"traces" bigint NOT NULL,
	"passed" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "score_task_hourly_delta" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "score_task_hourly_delta_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"project_id" text NOT NULL,
	"hour_ns" bigint NOT NULL,
	"service_name" text,
	"task_key" text NOT NULL,
	"has_task" boolean NOT NULL,
	"trace_rows" bigint NOT NULL,
	"runs" bigint NOT NULL,
	"baseline_runs" bigint NOT NULL,
	"token_sum" numeric DEFAULT '0' NOT NULL,
	"cost_sum" numeric DEFAULT '0' NOT NULL,
	"cost_n" bigint DEFAULT 0 NOT NULL,
	"outcome_n" bigint NOT NULL,
	"outcome_ok" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "score_trace_hourly_delta" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "score_trace_hourly_delta_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
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
	"notask_runs" bigint DEFAULT 0 NOT NULL,
	"notask_token_sum" numeric DEFAULT '0' NOT NULL,
	"notask_cost_sum" numeric DEFAULT '0' NOT NULL,
	"notask_cost_n" bigint DEFAULT 0 NOT NULL,
	"milestone_traces" bigint NOT NULL,
	"credit_sum" numeric NOT NULL,
	"credit_n" bigint NOT NULL,
	"full_sum" bigint NOT NULL,
	"full_n" bigint NOT NULL,
	"furthest_sum" numeric NOT NULL,
	"furthest_n" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "score_agent_hourly_delta_cell_idx" ON "score_agent_hourly_delta" USING btree ("project_id","hour_ns");--> statement-breakpoint
CREATE INDEX "score_finding_hourly_delta_cell_idx" ON "score_finding_hourly_delta" USING btree ("project_id","hour_ns");--> statement-breakpoint
CREATE INDEX "score_judge_finding_hourly_delta_cell_idx" ON "score_judge_finding_hourly_delta" USING btree ("project_id","hour_ns");--> statement-breakpoint
CREATE INDEX "score_milestone_hourly_delta_cell_idx" ON "score_milestone_hourly_delta" USING btree ("project_id","hour_ns");--> statement-breakpoint
CREATE INDEX "score_task_hourly_delta_cell_idx" ON "score_task_hourly_delta" USING btree ("project_id","hour_ns");--> statement-breakpoint
CREATE INDEX "score_trace_hourly_delta_cell_idx" ON "score_trace_hourly_delta" USING btree ("project_id","hour_ns");