export { createWorker, type Worker, type WorkerDeps } from "./worker.ts";
export { workerConfigSchema, type WorkerConfig } from "./config.ts";
export { workerQueueRegistry } from "./queue-registry.ts";
export { createSettleProcessor } from "./processors/settle.processor.ts";
export { createScoreProcessor } from "./processors/score.processor.ts";
export { createJudgeProcessor } from "./processors/judge.processor.ts";
export type { JudgeProducer, JudgeProducerInput, JudgeVerdict } from "./judging/judge-producer.ts";
export { createSchemaValidator } from "./scoring/schema-validator.ts";
export {
  createMilestoneEvaluator,
  defaultExpressionLimits,
  type ExpressionLimits,
  type MilestoneExpressionEvaluator,
} from "./milestones/milestone-evaluator.ts";
export type { JudgeSuiteFactory } from "./judging/judge-suite.ts";
