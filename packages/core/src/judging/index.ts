export {
  inputHash,
  judgeInputHash,
  judgeInputs,
  scoreInputHash,
  scoreInputHasher,
  scoringVersion,
  spanSetHash,
  type JudgeInput,
  type ScoreInputs,
} from "./input-hash.ts";
export { judgeBudgetDay, judgeSampled } from "./judge-policy.ts";
