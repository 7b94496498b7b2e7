CREATE TABLE "trace_verdicts" (
	"project_id" text NOT NULL,
	"trace_id" text NOT NULL,
	"producer_id" text NOT NULL,
	"producer_version" integer NOT NULL,
	"input_hash" text NOT NULL,
	"status" text NOT NULL,
	"result" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trace_verdicts_pk" PRIMARY KEY("project_id","trace_id","producer_id","producer_version","input_hash"),
	CONSTRAINT "trace_verdicts_status" CHECK ("trace_verdicts"."status" IN ('succeeded', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "trace_scores" ADD COLUMN "input_hash" text;--> statement-breakpoint
ALTER TABLE "traces" ADD COLUMN "span_set_hash" text;--> statement-breakpoint
ALTER TABLE "traces" ADD COLUMN "score_requested_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "traces_score_requested_idx" ON "traces" USING btree ("score_requested_at") WHERE "traces"."score_requested_at" IS NOT NULL;