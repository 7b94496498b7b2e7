CREATE INDEX "judge_findings_project_mode_trace_idx" ON "judge_findings" USING btree ("project_id","mode","trace_id");--> statement-breakpoint
CREATE INDEX "judge_findings_project_category_trace_idx" ON "judge_findings" USING btree ("project_id","category","trace_id");--> statement-breakpoint
CREATE INDEX "spans_search_idx" ON "spans" USING gin (to_tsvector('simple'::regconfig, regexp_replace(left("name" || ' ' || "attributes"::text, 32768), '\\(u[0-9a-fA-F]{4}|.)', ' ', 'g')));--> statement-breakpoint
CREATE INDEX "trace_findings_project_mode_trace_idx" ON "trace_findings" USING btree ("project_id","mode","trace_id");--> statement-breakpoint
CREATE INDEX "trace_findings_project_category_trace_idx" ON "trace_findings" USING btree ("project_id","category","trace_id");--> statement-breakpoint
CREATE INDEX "trace_scores_project_success_start_idx" ON "trace_scores" USING btree ("project_id","success","start_ns");