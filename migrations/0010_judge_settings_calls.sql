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
ALTER TABLE "trace_verdicts" ADD COLUMN "model" text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX "judge_calls_project_created_idx" ON "judge_calls" USING btree ("project_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "judge_calls_project_trace_idx" ON "judge_calls" USING btree ("project_id","trace_id");--> statement-breakpoint
ALTER TABLE "trace_verdicts" DROP CONSTRAINT "trace_verdicts_pk";
--> statement-breakpoint
ALTER TABLE "trace_verdicts" ADD CONSTRAINT "trace_verdicts_pk" PRIMARY KEY("project_id","trace_id","producer_id","producer_version","model","input_hash");