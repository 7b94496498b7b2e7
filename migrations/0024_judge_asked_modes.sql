ALTER TABLE "judge_current_verdicts" ADD COLUMN "asked_modes" text[];--> statement-breakpoint
-- Hand-written backfill: succeeded verdicts stored before judges declared the modes they ask
-- about get the modes their judge asked at the time; a producer not listed keeps null (every mode).
UPDATE "judge_current_verdicts" SET "asked_modes" = CASE "producer_id"
    WHEN 'judge.mast-checklist' THEN ARRAY['FM-1.1','FM-1.2','FM-1.3','FM-1.4','FM-1.5','FM-2.1','FM-2.2','FM-2.3','FM-2.4','FM-2.5','FM-2.6','FM-3.1','FM-3.2','FM-3.3']
    WHEN 'judge.handoff-preservation' THEN ARRAY['FM-2.4']
    ELSE ARRAY[]::text[]
  END
  WHERE "status" = 'succeeded' AND "producer_id" IN ('judge.mast-checklist', 'judge.handoff-preservation', 'judge.decisive-error-all-at-once', 'judge.decisive-error-step-by-step', 'judge.outcome-rubric');
