CREATE TABLE "alert_events" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"rule_id" text NOT NULL,
	"sequence" integer NOT NULL,
	"type" text NOT NULL,
	"rule" jsonb NOT NULL,
	"value" double precision,
	"numerator" double precision NOT NULL,
	"denominator" double precision NOT NULL,
	"samples" integer NOT NULL,
	"previous" jsonb,
	"change" double precision,
	"window_from_ms" bigint NOT NULL,
	"window_to_ms" bigint NOT NULL,
	"example_trace_ids" text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "alert_events_rule_sequence_uq" UNIQUE("rule_id","sequence"),
	CONSTRAINT "alert_events_type" CHECK ("alert_events"."type" IN ('alert.firing', 'alert.resolved'))
);
--> statement-breakpoint
CREATE TABLE "alert_rules" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"enabled" boolean NOT NULL,
	"service_name" text,
	"agent" text,
	"metric" jsonb NOT NULL,
	"condition" jsonb NOT NULL,
	"window_ms" bigint NOT NULL,
	"min_samples" integer NOT NULL,
	"webhook_ids" text[] NOT NULL,
	"state" text DEFAULT 'ok' NOT NULL,
	"transitions" integer DEFAULT 0 NOT NULL,
	"last_evaluated_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "alert_rules_state" CHECK ("alert_rules"."state" IN ('ok', 'firing'))
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"webhook_id" text NOT NULL,
	"event_id" text NOT NULL,
	"event_type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text NOT NULL,
	"round_attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "webhook_deliveries_event_webhook_uq" UNIQUE("event_id","webhook_id"),
	CONSTRAINT "webhook_deliveries_status" CHECK ("webhook_deliveries"."status" IN ('pending', 'delivered', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "webhook_delivery_attempts" (
	"delivery_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"status" integer,
	"ok" boolean NOT NULL,
	"failure_kind" text,
	"message" text,
	"duration_ms" double precision NOT NULL,
	"response_excerpt" text NOT NULL,
	CONSTRAINT "webhook_delivery_attempts_uq" UNIQUE("delivery_id","attempt")
);
--> statement-breakpoint
CREATE TABLE "webhooks" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"url" text NOT NULL,
	"description" text NOT NULL,
	"enabled" boolean NOT NULL,
	"slack" boolean NOT NULL,
	"allow_private_targets" boolean NOT NULL,
	"secret" text NOT NULL,
	"secret_prefix" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "alert_events" ADD CONSTRAINT "alert_events_rule_id_alert_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."alert_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_id_webhooks_id_fk" FOREIGN KEY ("webhook_id") REFERENCES "public"."webhooks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_delivery_attempts" ADD CONSTRAINT "webhook_delivery_attempts_delivery_id_webhook_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."webhook_deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_events_project_created_idx" ON "alert_events" USING btree ("project_id","created_at","id");--> statement-breakpoint
CREATE INDEX "alert_rules_project_idx" ON "alert_rules" USING btree ("project_id","id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_webhook_idx" ON "webhook_deliveries" USING btree ("webhook_id","created_at","id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_pending_idx" ON "webhook_deliveries" USING btree ("next_attempt_at") WHERE "webhook_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "webhooks_project_idx" ON "webhooks" USING btree ("project_id","id");