CREATE TABLE "trace_label_history" (
	"project_id" text NOT NULL,
	"trace_id" text NOT NULL,
	"modes" jsonb NOT NULL,
	"decisive_agent" text,
	"decisive_span_id" text,
	"decisive_step_index" integer,
	"note" text,
	"labeller" text NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"replaced_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trace_label_history_project_id_trace_id_updated_at_pk" PRIMARY KEY("project_id","trace_id","updated_at")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "scope" text DEFAULT 'full' NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "last_used_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "previous_secret" text;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "previous_secret_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_scope" CHECK ("api_keys"."scope" IN ('ingest', 'read', 'full'));