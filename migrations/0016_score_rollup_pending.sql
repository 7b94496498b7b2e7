CREATE TABLE "score_rollup_pending" (
	"project_id" text NOT NULL,
	"trace_id" text NOT NULL,
	CONSTRAINT "score_rollup_pending_project_id_trace_id_pk" PRIMARY KEY("project_id","trace_id")
);
