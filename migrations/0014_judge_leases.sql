CREATE TABLE "judge_leases" (
	"project_id" text NOT NULL,
	"trace_id" text NOT NULL,
	"producer_key" text NOT NULL,
	"holder" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "judge_leases_project_id_trace_id_producer_key_pk" PRIMARY KEY("project_id","trace_id","producer_key")
);
