/**
 * The scoring configuration and baseline run of (project, service, task), kept
 * between score jobs. Every job reads the project's config fingerprint with
 * the trace (readScoreJobState, one round trip); an entry is used only while
 * its fingerprint is the current one, so a change to any config row or any
 * baseline-tagged run is seen by the next job, as when it was read each time.
 * The expressions compiled for the milestone threads are cached by source,
 * so one config version compiles each expression once per thread.
 */
import { scoreInputHasher, type RunTagsOverride, type ScoringConfig } from "@crux/core";
import { findBaselineRun, loadScoringConfig, type Database } from "@crux/db";

export interface ScoringInputs {
  config: ScoringConfig;
  baselineRun: Awaited<ReturnType<typeof findBaselineRun>>;
  /** scoreInputHash over this config and baseline (their canonical JSON made once per load, not per job). */
  inputHash: (spanSetHash: string, outcomeOverride: RunTagsOverride | null) => string;
}

/** Bounded: cleared when full (reloading costs one job a few reads). */
const maxEntries = 1_000;

export function createScoringConfigCache(database: Database) {
  const entries = new Map<string, { fingerprint: string; inputs: Promise<ScoringInputs> }>();
  let loads = 0;

  async function load(projectId: string, serviceName: string | null, taskId: string | null): Promise<ScoringInputs> {
    loads++;
    const [config, baselineRun] = await Promise.all([
      loadScoringConfig(database, projectId, serviceName, taskId),
      taskId === null ? null : findBaselineRun(database, projectId, taskId),
    ]);
    return { config, baselineRun, inputHash: scoreInputHasher(config, baselineRun) };
  }

  return {
    /** The inputs for the fingerprint read with the trace; loaded once per fingerprint (concurrent jobs share the load). */
    get(projectId: string, serviceName: string | null, taskId: string | null, fingerprint: string): Promise<ScoringInputs> {
      const key = JSON.stringify([projectId, serviceName, taskId]);
      const hit = entries.get(key);
      if (hit && hit.fingerprint === fingerprint) return hit.inputs;
      if (!hit && entries.size >= maxEntries) entries.clear();
      const inputs = load(projectId, serviceName, taskId);
      entries.set(key, { fingerprint, inputs });
      // A failed load is not kept: the next job reads again.
      inputs.catch(() => {
        if (entries.get(key)?.inputs === inputs) entries.delete(key);
      });
      return inputs;
    },
    /** How many times the configuration was read from the database (tests, benches). */
    get loads(): number {
      return loads;
    },
  };
}
