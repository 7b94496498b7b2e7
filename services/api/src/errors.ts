/**
 * The API's one error body, { code, message, details? }, and the error routes
 * throw. The status of each code is decided once, in @crux/contracts
 * (errorStatus); an ApiError carries only the code.
 */
import { ErrorBody, errorStatus, type ErrorCode, type ErrorStatus } from "@crux/contracts";

export { ErrorBody };

export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly statusCode: ErrorStatus;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.statusCode = errorStatus[code];
  }
}
