/**
 * Scoring configuration: /prices, /agent-contracts, /handoff-contracts,
 * /milestone-sets, /baselines (bodies; responses are the body after defaults
 * plus ConfigMeta) and /settings.
 */
import { z } from "zod";
import { JsonValue } from "./request.ts";

const noNul = { message: "must not contain a NUL character (U+0000)" };
const Name = z
  .string()
  .trim()
  .min(1)
  .max(256)
  .refine((s) => !s.includes("\u0000"), noNul);
const Expression = z
  .string()
  .min(1)
  .max(10_000)
  .refine((s) => !s.includes("\u0000"), noNul);
const ServiceName = Name.nullable().default(null).describe("null = every service of the project; a service's row wins over the project-wide one");
const Money = z.number().finite().min(0);
const Tools = z.array(Name).max(500).nullable().default(null);

export const PriceBody = z.object({
  model: Name.describe("Model id or id prefix; matched case-insensitively"),
  inputPerMTok: Money,
  outputPerMTok: Money,
  cachedInputPerMTok: Money.nullable().default(null),
});

/** An entry of GET /prices: a seeded default or the project's own price. */
export const EffectivePrice = PriceBody.extend({
  source: z.enum(["default", "project"]),
  id: z.string().nullable(),
  createdAt: z.string().nullable(),
  updatedAt: z.string().nullable(),
});

export const AgentContractBody = z.object({
  serviceName: ServiceName,
  agent: Name.describe('Agent name, or "*" for any agent'),
  role: Name,
  allowedTools: Tools,
  forbiddenTools: Tools,
  isVerifier: z.boolean().default(false),
  completionCondition: Expression.nullable().default(null).describe("JSONata expression over the trace view"),
});

/** A contract on the handoffs from `sender` to `receiver` (the handoff shape's names). */
export const HandoffContractBody = z.object({
  serviceName: ServiceName,
  sender: Name.describe("Agent handing off"),
  receiver: Name.describe("Agent receiving"),
  jsonSchema: JsonValue.nullable().default(null).describe("JSON Schema the handoff payload must satisfy"),
  requiredConstraints: z
    .array(
      z
        .string()
        .min(1)
        .max(1000)
        .refine((s) => !s.includes("\u0000"), noNul),
    )
    .max(200)
    .nullable()
    .default(null),
});
export type HandoffContractBody = z.infer<typeof HandoffContractBody>;

export const MilestoneSetBody = z.object({
  serviceName: ServiceName,
  name: Name,
  milestones: z
    .array(
      z.object({
        id: Name,
        weight: z.number().finite().min(0),
        check: Expression.describe("JSONata expression over the trace view"),
        requires: z.array(Name).max(100).optional(),
        required: z.boolean().optional(),
      }),
    )
    .min(1)
    .max(200),
});

export const BaselineBody = z
  .object({
    taskId: Name.nullable().default(null),
    serviceName: Name.nullable().default(null),
    tokens: z.number().finite().positive().nullable().default(null),
    costUsd: z.number().finite().positive().nullable().default(null).describe("The single-agent run's costUsd"),
  })
  .refine((b) => b.taskId !== null || b.serviceName !== null, { message: "set taskId or serviceName", path: ["taskId"] })
  .refine((b) => b.tokens !== null || b.costUsd !== null, { message: "set tokens or costUsd", path: ["tokens"] });

/** What every stored configuration row carries besides its body. */
export const ConfigMeta = z.object({ id: z.string(), createdAt: z.string(), updatedAt: z.string() });

export const Settings = z.object({
  coordinationWeights: z
    .object({ redundancy: z.number().finite().min(0), ignoredHandoffs: z.number().finite().min(0), roleViolations: z.number().finite().min(0) })
    .refine((w) => w.redundancy + w.ignoredHandoffs + w.roleViolations > 0, { message: "at least one weight must be positive" })
    .nullable()
    .describe("Weights of Coord = 1 - Σ w_k p_k (normalized to sum to 1); null = equal"),
  repetitionK: z.number().int().min(2).max(100).nullable().describe("FM-1.3 step-repetition threshold; null = 3"),
});
