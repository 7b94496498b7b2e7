CREATE TABLE "replays" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"trace_id" text NOT NULL,
	"runner_id" text NOT NULL,
	"trials" integer NOT NULL,
	"corrections" jsonb NOT NULL,
	"sets" jsonb NOT NULL,
	"task" jsonb NOT NULL,
	"run_timeout_ms" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "replays_trials" CHECK ("replays"."trials" >= 1)
);
--> statement-breakpoint
ALTER TABLE "experiment_dispatches" ADD COLUMN "kind" text DEFAULT 'experiment' NOT NULL;--> statement-breakpoint
CREATE INDEX "replays_project_trace_idx" ON "replays" USING btree ("project_id","trace_id","created_at");--> statement-breakpoint
CREATE INDEX "trace_scores_project_replay_idx" ON "trace_scores" USING btree ("project_id","replay_id","variant","trial") WHERE "trace_scores"."replay_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "experiment_dispatches" ADD CONSTRAINT "experiment_dispatches_kind" CHECK ("experiment_dispatches"."kind" IN ('experiment', 'replay'));