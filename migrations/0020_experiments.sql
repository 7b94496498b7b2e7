CREATE TABLE "dataset_items" (
	"dataset_id" text NOT NULL,
	"version" integer NOT NULL,
	"task_id" text NOT NULL,
	"input" jsonb NOT NULL,
	"expected" jsonb,
	"milestone_set_id" text,
	"human_minutes" double precision,
	"family" text,
	"tags" text[] NOT NULL,
	CONSTRAINT "dataset_items_dataset_id_version_task_id_pk" PRIMARY KEY("dataset_id","version","task_id"),
	CONSTRAINT "dataset_items_minutes" CHECK ("dataset_items"."human_minutes" IS NULL OR "dataset_items"."human_minutes" > 0)
);
--> statement-breakpoint
CREATE TABLE "dataset_versions" (
	"dataset_id" text NOT NULL,
	"version" integer NOT NULL,
	"items" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dataset_versions_dataset_id_version_pk" PRIMARY KEY("dataset_id","version")
);
--> statement-breakpoint
CREATE TABLE "datasets" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"current_version" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "datasets_project_name_uq" UNIQUE("project_id","name")
);
--> statement-breakpoint
CREATE TABLE "experiment_dispatches" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"experiment_id" text NOT NULL,
	"variant" text NOT NULL,
	"task_id" text NOT NULL,
	"trial" integer NOT NULL,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"sent_at" timestamp with time zone,
	"deadline_at" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "experiment_dispatches_run_uq" UNIQUE("project_id","experiment_id","variant","task_id","trial"),
	CONSTRAINT "experiment_dispatches_status" CHECK ("experiment_dispatches"."status" IN ('pending', 'sent', 'failed', 'stopped'))
);
--> statement-breakpoint
CREATE TABLE "experiment_settings" (
	"project_id" text PRIMARY KEY NOT NULL,
	"include_in_metrics" boolean DEFAULT false NOT NULL,
	"ship_bar" jsonb,
	"max_runs_per_start" integer DEFAULT 1000 NOT NULL,
	"concurrency" integer DEFAULT 4 NOT NULL,
	"run_timeout_ms" bigint DEFAULT 1800000 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "experiment_variants" (
	"project_id" text NOT NULL,
	"experiment_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"is_baseline" boolean NOT NULL,
	"active_agents" jsonb,
	"ord" integer NOT NULL,
	CONSTRAINT "experiment_variants_project_id_experiment_id_name_pk" PRIMARY KEY("project_id","experiment_id","name")
);
--> statement-breakpoint
CREATE TABLE "experiments" (
	"project_id" text NOT NULL,
	"id" text NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"dataset_id" text,
	"dataset_version" integer,
	"trials" integer NOT NULL,
	"value_kind" text NOT NULL,
	"runner_id" text,
	"status" text NOT NULL,
	"run_timeout_ms" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "experiments_project_id_id_pk" PRIMARY KEY("project_id","id"),
	CONSTRAINT "experiments_value_kind" CHECK ("experiments"."value_kind" IN ('success', 'partial_credit')),
	CONSTRAINT "experiments_status" CHECK ("experiments"."status" IN ('draft', 'running', 'stopped', 'done')),
	CONSTRAINT "experiments_trials" CHECK ("experiments"."trials" >= 1)
);
--> statement-breakpoint
CREATE TABLE "runners" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"url" text NOT NULL,
	"allow_private_targets" boolean NOT NULL,
	"secret" text NOT NULL,
	"secret_prefix" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "trace_scores" ADD COLUMN "trial" integer;--> statement-breakpoint
ALTER TABLE "trace_scores" ADD COLUMN "active_agents" jsonb;--> statement-breakpoint
ALTER TABLE "trace_scores" ADD COLUMN "replay_id" text;--> statement-breakpoint
ALTER TABLE "trace_scores" ADD COLUMN "metrics_excluded" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "dataset_versions" ADD CONSTRAINT "dataset_versions_dataset_id_datasets_id_fk" FOREIGN KEY ("dataset_id") REFERENCES "public"."datasets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "datasets_project_idx" ON "datasets" USING btree ("project_id","id");--> statement-breakpoint
CREATE INDEX "experiment_dispatches_pending_idx" ON "experiment_dispatches" USING btree ("next_attempt_at") WHERE "experiment_dispatches"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "runners_project_idx" ON "runners" USING btree ("project_id","id");--> statement-breakpoint
CREATE INDEX "trace_scores_project_experiment_idx" ON "trace_scores" USING btree ("project_id","experiment_id","variant") WHERE "trace_scores"."experiment_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "trace_scores_metrics_excluded_idx" ON "trace_scores" USING btree ("project_id","trace_id") WHERE "trace_scores"."metrics_excluded";