// One error shape for every transport: HTTP, IPC and the CLI. Codes and statuses are those of
// docs/interface.md ("Errors"); nothing else is ever sent to a caller.
export const ERROR_STATUS = {
  invalid_json: 400,
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  // A job the user stopped (an export or an import): not a bad request. 499 is nginx's "client
  // closed request"; only the app's own operations answer it, never the audience API.
  cancelled: 499,
  internal_error: 500,
  unavailable: 503,
  // The dataset file is damaged (a checksum or SQLite found it): retrying cannot help; the message
  // names the file and what to do (switch to the previous dataset, re-import). docs/dataset-format.md.
  dataset_damaged: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorBody {
  error: { code: ErrorCode; message: string; field?: string };
}

/** An error a caller may see: its message is written for a person and never holds record data. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly field: string | undefined;
  constructor(code: ErrorCode, message: string, field?: string) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.field = field;
  }
  get status(): number {
    return ERROR_STATUS[this.code];
  }
  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.field ? { field: this.field } : {}) } };
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

/** Any unknown failure becomes one internal error: no stack, no SQL, no record data. */
export function toErrorBody(e: unknown): ErrorBody {
  if (isAppError(e)) return e.toBody();
  return { error: { code: 'internal_error', message: 'The service failed unexpectedly; try again.' } };
}
