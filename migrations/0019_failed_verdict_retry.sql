ALTER TABLE "trace_verdicts" ADD COLUMN "attempts" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "trace_verdicts" ADD COLUMN "retry_at" timestamp (3) with time zone;