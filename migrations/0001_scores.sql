CREATE TABLE "agent_contracts" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"service_name" text,
	"agent" text NOT NULL,
	"role" text NOT NULL,
	"allowed_tools" text[],
	"forbidden_tools" text[],
	"is_verifier" boolean DEFAULT false NOT NULL,
	"completion_condition" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_contracts_scope_uq" UNIQUE NULLS NOT DISTINCT("project_id","service_name","agent")
);
--> statement-breakpoint
CREATE TABLE "baselines" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"task_id" text,
	"service_name" text,
	"tokens" double precision,
	"cost_usd" double precision,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "baselines_scope_uq" UNIQUE NULLS NOT DISTINCT("project_id","task_id","service_name"),
	CONSTRAINT "baselines_scope_present" CHECK ("baselines"."task_id" IS NOT NULL OR "baselines"."service_name" IS NOT NULL)
);
--> statement-breakpoint
CREATE TABLE "handoff_contracts" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"service_name" text,
	"from_agent" text NOT NULL,
	"to_agent" text NOT NULL,
	"json_schema" jsonb,
	"required_constraints" text[],
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "handoff_contracts_scope_uq" UNIQUE NULLS NOT DISTINCT("project_id","service_name","from_agent","to_agent")
);
--> statement-breakpoint
CREATE TABLE "milestone_sets" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"service_name" text,
	"name" text NOT NULL,
	"milestones" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "milestone_sets_scope_uq" UNIQUE NULLS NOT DISTINCT("project_id","service_name")
);
--> statement-breakpoint
CREATE TABLE "outcome_overrides" (
	"project_id" text NOT NULL,
	"trace_id" text NOT NULL,
	"override" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "outcome_overrides_project_id_trace_id_pk" PRIMARY KEY("project_id","trace_id")
);
--> statement-breakpoint
CREATE TABLE "prices" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"model" text NOT NULL,
	"input_per_m_tok" double precision NOT NULL,
	"output_per_m_tok" double precision NOT NULL,
	"cached_input_per_m_tok" double precision,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "project_settings" (
	"project_id" text PRIMARY KEY NOT NULL,
	"coordination_weights" jsonb,
	"repetition_k" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "trace_agent_usage" (
	"project_id" text NOT NULL,
	"trace_id" text NOT NULL,
	"agent" text NOT NULL,
	"agent_id" text,
	"parent_agent" text,
	"spans" integer NOT NULL,
	"llm_calls" integer NOT NULL,
	"tool_calls" integer NOT NULL,
	"errors" integer NOT NULL,
	"input_tokens" bigint NOT NULL,
	"output_tokens" bigint NOT NULL,
	"cached_tokens" bigint NOT NULL,
	"cost_usd" double precision,
	"token_share" double precision NOT NULL,
	"wall_ms" double precision NOT NULL,
	"milestone_credit" double precision,
	"start_ns" bigint NOT NULL,
	"service_name" text,
	CONSTRAINT "trace_agent_usage_project_id_trace_id_agent_pk" PRIMARY KEY("project_id","trace_id","agent")
);
--> statement-breakpoint
CREATE TABLE "trace_attributions" (
	"project_id" text NOT NULL,
	"trace_id" text NOT NULL,
	"ord" integer NOT NULL,
	"method" text NOT NULL,
	"rank" integer NOT NULL,
	"agent" text,
	"step_index" integer,
	"span_id" text,
	"reason" text NOT NULL,
	"confidence" double precision NOT NULL,
	CONSTRAINT "trace_attributions_project_id_trace_id_ord_pk" PRIMARY KEY("project_id","trace_id","ord")
);
--> statement-breakpoint
CREATE TABLE "trace_findings" (
	"project_id" text NOT NULL,
	"trace_id" text NOT NULL,
	"ord" integer NOT NULL,
	"mode" text NOT NULL,
	"category" text NOT NULL,
	"agent" text,
	"span_id" text NOT NULL,
	"step_index" integer,
	"source" text NOT NULL,
	"confidence" double precision NOT NULL,
	"evidence" text NOT NULL,
	"start_ns" bigint NOT NULL,
	"service_name" text,
	"success" boolean,
	CONSTRAINT "trace_findings_project_id_trace_id_ord_pk" PRIMARY KEY("project_id","trace_id","ord")
);
--> statement-breakpoint
CREATE TABLE "trace_handoffs" (
	"project_id" text NOT NULL,
	"trace_id" text NOT NULL,
	"idx" integer NOT NULL,
	"sender" text,
	"receiver" text,
	"span_id" text NOT NULL,
	"via" text NOT NULL,
	"message" text,
	"start_ns" bigint NOT NULL,
	CONSTRAINT "trace_handoffs_project_id_trace_id_idx_pk" PRIMARY KEY("project_id","trace_id","idx")
);
--> statement-breakpoint
CREATE TABLE "trace_scores" (
	"project_id" text NOT NULL,
	"trace_id" text NOT NULL,
	"version" integer NOT NULL,
	"service_name" text,
	"start_ns" bigint NOT NULL,
	"end_ns" bigint NOT NULL,
	"success" boolean,
	"score" double precision,
	"task_id" text,
	"variant" text,
	"is_baseline" boolean NOT NULL,
	"experiment_id" text,
	"seed" text,
	"input_tokens" bigint NOT NULL,
	"output_tokens" bigint NOT NULL,
	"cached_tokens" bigint NOT NULL,
	"total_tokens" bigint NOT NULL,
	"cost_usd" double precision,
	"unpriced_models" text[] NOT NULL,
	"token_multiplier" double precision,
	"token_observed" double precision,
	"token_baseline" double precision,
	"token_baseline_source" text NOT NULL,
	"cost_multiplier" double precision,
	"cost_observed" double precision,
	"cost_baseline" double precision,
	"cost_baseline_source" text NOT NULL,
	"redundancy" double precision,
	"ignored_handoffs" double precision,
	"role_violations" double precision,
	"coordination_score" double precision,
	"communication_efficiency" double precision,
	"goal_drift" double precision,
	"milestone_set_id" text,
	"milestone_partial_credit" double precision,
	"milestone_full_success" boolean,
	"milestone_furthest_index" integer,
	"milestone_detail" jsonb,
	"signals" jsonb NOT NULL,
	"flags" jsonb NOT NULL,
	"finding_count" integer NOT NULL,
	"scored_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trace_scores_project_id_trace_id_pk" PRIMARY KEY("project_id","trace_id")
);
--> statement-breakpoint
CREATE TABLE "trace_trajectories" (
	"project_id" text NOT NULL,
	"trace_id" text NOT NULL,
	"agent" text NOT NULL,
	"steps" jsonb NOT NULL,
	CONSTRAINT "trace_trajectories_project_id_trace_id_agent_pk" PRIMARY KEY("project_id","trace_id","agent")
);
--> statement-breakpoint
CREATE UNIQUE INDEX "prices_project_model_uq" ON "prices" USING btree ("project_id","model");--> statement-breakpoint
CREATE INDEX "trace_agent_usage_project_start_idx" ON "trace_agent_usage" USING btree ("project_id","start_ns");--> statement-breakpoint
CREATE INDEX "trace_agent_usage_project_agent_start_idx" ON "trace_agent_usage" USING btree ("project_id","agent","start_ns");--> statement-breakpoint
CREATE INDEX "trace_agent_usage_project_service_start_idx" ON "trace_agent_usage" USING btree ("project_id","service_name","start_ns");--> statement-breakpoint
CREATE INDEX "trace_findings_project_start_idx" ON "trace_findings" USING btree ("project_id","start_ns");--> statement-breakpoint
CREATE INDEX "trace_findings_project_service_start_idx" ON "trace_findings" USING btree ("project_id","service_name","start_ns");--> statement-breakpoint
CREATE INDEX "trace_findings_project_agent_start_idx" ON "trace_findings" USING btree ("project_id","agent","start_ns");--> statement-breakpoint
CREATE INDEX "trace_scores_project_start_idx" ON "trace_scores" USING btree ("project_id","start_ns");--> statement-breakpoint
CREATE INDEX "trace_scores_project_service_start_idx" ON "trace_scores" USING btree ("project_id","service_name","start_ns");--> statement-breakpoint
CREATE INDEX "trace_scores_project_task_idx" ON "trace_scores" USING btree ("project_id","task_id","start_ns");