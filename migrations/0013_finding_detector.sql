ALTER TABLE "trace_findings" ADD COLUMN "detector" text;--> statement-breakpoint
-- Findings now say which code detector produced them. Rows written before get the id
-- only where the mode has exactly one detector in packages/core/src/scorers/detectors.ts
-- as of this migration; FM-3.1, FM-3.2 and FM-3.3 have several, so their old rows stay
-- null (validation counts them in the mode's aggregate row only, until re-scored).
UPDATE "trace_findings" SET "detector" = CASE "mode"
    WHEN 'FM-1.1' THEN 'handoff-contracts'
    WHEN 'FM-1.2' THEN 'role-contracts'
    WHEN 'FM-1.3' THEN 'repetition'
    WHEN 'FM-1.5' THEN 'termination'
    WHEN 'FM-2.4' THEN 'handoff-contracts'
    WHEN 'FM-2.5' THEN 'ignored-input'
  END
WHERE "detector" IS NULL AND "mode" IN ('FM-1.1', 'FM-1.2', 'FM-1.3', 'FM-1.5', 'FM-2.4', 'FM-2.5');
