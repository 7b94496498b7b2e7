/** The API's one error body: { code, message, details? } (docs/engineering.md §4). */
import { z } from "zod";

export const ErrorBody = z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() });
export type ErrorBody = z.infer<typeof ErrorBody>;

export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}
