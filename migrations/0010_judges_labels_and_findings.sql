CREATE TABLE "judge_calls" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"trace_id" text NOT NULL,
	"kind" text NOT NULL,
	"prompt_version" integer NOT NULL,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"input_tokens" integer NOT NULL,
	"output_tokens" integer NOT NULL,
	"cost_usd" double precision,
	"latency_ms" double precision NOT NULL,
	"outcome" text NOT NULL,
	"error" text,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "judge_current_verdicts" (
	"project_id" text NOT NULL,
	"trace_id" text NOT NULL,
	"producer_id" text NOT NULL,
	"producer_version" integer NOT NULL,
	"input_hash" text NOT NULL,
	"status" text NOT NULL,
	"start_ns" bigint NOT NULL,
	"service_name" text,
	"outcome_success" boolean,
	"outcome_score" double precision,
	"attribution_method" text,
	"attribution_agent" text,
	"attribution_span_id" text,
	"attribution_step_index" integer,
	"attribution_explanation" text,
	"verdict_created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "judge_current_verdicts_project_id_trace_id_producer_id_pk" PRIMARY KEY("project_id","trace_id","producer_id")
);
--> statement-breakpoint
CREATE TABLE "judge_findings" (
	"project_id" text NOT NULL,
	"trace_id" text NOT NULL,
	"producer_id" text NOT NULL,
	"ord" integer NOT NULL,
	"mode" text NOT NULL,
	"category" text NOT NULL,
	"agent" text,
	"span_id" text NOT NULL,
	"step_index" integer NOT NULL,
	"confidence" double precision NOT NULL,
	"evidence" text NOT NULL,
	"explanation" text NOT NULL,
	"start_ns" bigint NOT NULL,
	"service_name" text,
	CONSTRAINT "judge_findings_project_id_trace_id_producer_id_ord_pk" PRIMARY KEY("project_id","trace_id","producer_id","ord")
);
--> statement-breakpoint
CREATE TABLE "judge_settings" (
	"project_id" text PRIMARY KEY NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"provider" text,
	"model" text,
	"base_url" text,
	"api_key_ciphertext" text,
	"api_key_last4" text,
	"sampling_share" double precision,
	"daily_budget_usd" double precision,
	"rubric" text,
	"kinds" text[],
	"version" integer DEFAULT 1 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "judge_settings_provider" CHECK ("judge_settings"."provider" IS NULL OR "judge_settings"."provider" IN ('anthropic', 'openai')),
	CONSTRAINT "judge_settings_sampling" CHECK ("judge_settings"."sampling_share" IS NULL OR ("judge_settings"."sampling_share" >= 0 AND "judge_settings"."sampling_share" <= 1))
);
--> statement-breakpoint
CREATE TABLE "score_judge_finding_hourly" (
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
	"extra_failed" bigint NOT NULL,
	CONSTRAINT "score_judge_finding_hourly_cell_uq" UNIQUE NULLS NOT DISTINCT("project_id","hour_ns","service_name","agent","kind","k1","k2")
);
--> statement-breakpoint
CREATE TABLE "trace_labels" (
	"project_id" text NOT NULL,
	"trace_id" text NOT NULL,
	"modes" jsonb NOT NULL,
	"decisive_agent" text,
	"decisive_span_id" text,
	"decisive_step_index" integer,
	"note" text,
	"labeller" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trace_labels_project_id_trace_id_pk" PRIMARY KEY("project_id","trace_id")
);
--> statement-breakpoint
ALTER TABLE "trace_verdicts" ADD COLUMN "model" text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX "judge_calls_project_created_idx" ON "judge_calls" USING btree ("project_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "judge_calls_project_trace_idx" ON "judge_calls" USING btree ("project_id","trace_id");--> statement-breakpoint
CREATE INDEX "judge_current_verdicts_project_start_idx" ON "judge_current_verdicts" USING btree ("project_id","start_ns");--> statement-breakpoint
CREATE INDEX "judge_findings_project_start_idx" ON "judge_findings" USING btree ("project_id","start_ns");--> statement-breakpoint
ALTER TABLE "trace_verdicts" DROP CONSTRAINT "trace_verdicts_pk";
--> statement-breakpoint
ALTER TABLE "trace_verdicts" ADD CONSTRAINT "trace_verdicts_pk" PRIMARY KEY("project_id","trace_id","producer_id","producer_version","model","input_hash");