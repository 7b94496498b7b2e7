export { createWorker, type Worker, type WorkerDeps } from "./worker.ts";
export { workerConfigSchema, type WorkerConfig } from "./config.ts";
export { createSettleProcessor } from "./settle.processor.ts";
export { createScoreProcessor } from "./score.processor.ts";
export { createJudgeProcessor } from "./judge.processor.ts";
export type { JudgeProducer, JudgeProducerInput, JudgeVerdict } from "./judge-producer.ts";
export { createSchemaValidator } from "./schema-validator.ts";
export { createMilestoneEvaluator, defaultExpressionLimits, type ExpressionLimits, type MilestoneExpressionEvaluator } from "./milestone-evaluator.ts";
export type { JudgeSuiteFactory } from "./judge-suite.ts";
