CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"key_hash" text NOT NULL,
	"key_prefix" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "spans" (
	"project_id" text NOT NULL,
	"trace_id" text NOT NULL,
	"span_id" text NOT NULL,
	"parent_span_id" text,
	"trace_state" text NOT NULL,
	"flags" bigint NOT NULL,
	"name" text NOT NULL,
	"kind" smallint NOT NULL,
	"start_ns" bigint NOT NULL,
	"end_ns" bigint NOT NULL,
	"status_code" smallint NOT NULL,
	"status_message" text NOT NULL,
	"service_name" text,
	"operation" text NOT NULL,
	"convention" text NOT NULL,
	"agent_name" text,
	"agent_id" text,
	"model" text,
	"provider" text,
	"input_tokens" integer,
	"output_tokens" integer,
	"cached_tokens" integer,
	"cost" double precision,
	"tool_name" text,
	"tool_call_id" text,
	"handoff_from" text,
	"handoff_to" text,
	"error_type" text,
	"is_error" boolean NOT NULL,
	"conversation_id" text,
	"tags" jsonb NOT NULL,
	"attributes" jsonb NOT NULL,
	"events" jsonb NOT NULL,
	"links" jsonb NOT NULL,
	"resource" jsonb NOT NULL,
	"scope" jsonb NOT NULL,
	"limits_applied" jsonb NOT NULL,
	"dropped_attributes_count" integer NOT NULL,
	"dropped_events_count" integer NOT NULL,
	"dropped_links_count" integer NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "spans_project_id_trace_id_span_id_pk" PRIMARY KEY("project_id","trace_id","span_id"),
	CONSTRAINT "spans_trace_id_len" CHECK (octet_length("spans"."trace_id") = 32),
	CONSTRAINT "spans_span_id_len" CHECK (octet_length("spans"."span_id") = 16),
	CONSTRAINT "spans_parent_span_id_len" CHECK ("spans"."parent_span_id" IS NULL OR octet_length("spans"."parent_span_id") = 16)
);
--> statement-breakpoint
CREATE TABLE "traces" (
	"project_id" text NOT NULL,
	"trace_id" text NOT NULL,
	"service_name" text,
	"root_span_id" text,
	"root_name" text,
	"root_start_ns" bigint,
	"start_ns" bigint NOT NULL,
	"end_ns" bigint NOT NULL,
	"span_count" integer NOT NULL,
	"error_count" integer NOT NULL,
	"llm_calls" integer NOT NULL,
	"tool_calls" integer NOT NULL,
	"raw_input_tokens" bigint NOT NULL,
	"raw_output_tokens" bigint NOT NULL,
	"agents" text[] DEFAULT '{}'::text[] NOT NULL,
	"has_error" boolean NOT NULL,
	"first_received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_received_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"dirty" boolean DEFAULT true NOT NULL,
	"dirty_since" timestamp with time zone,
	"settled_at" timestamp with time zone,
	"settle_version" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "traces_project_id_trace_id_pk" PRIMARY KEY("project_id","trace_id")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "traces" ADD CONSTRAINT "traces_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_key_hash_index" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_project_id_index" ON "api_keys" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "traces_project_start_idx" ON "traces" USING btree ("project_id","start_ns" DESC NULLS LAST,"trace_id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "traces_project_service_start_idx" ON "traces" USING btree ("project_id","service_name","start_ns" DESC NULLS LAST,"trace_id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "traces_project_error_start_idx" ON "traces" USING btree ("project_id","start_ns" DESC NULLS LAST,"trace_id" DESC NULLS LAST) WHERE "traces"."has_error";--> statement-breakpoint
CREATE INDEX "traces_agents_gin_idx" ON "traces" USING gin ("agents");--> statement-breakpoint
CREATE INDEX "traces_dirty_idx" ON "traces" USING btree ("last_received_at") WHERE "traces"."dirty";