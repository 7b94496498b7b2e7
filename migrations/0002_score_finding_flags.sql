ALTER TABLE "trace_findings" ADD COLUMN "first_of_mode" boolean NOT NULL;--> statement-breakpoint
ALTER TABLE "trace_findings" ADD COLUMN "first_of_category" boolean NOT NULL;--> statement-breakpoint
ALTER TABLE "trace_findings" ADD COLUMN "first_of_agent_mode" boolean NOT NULL;