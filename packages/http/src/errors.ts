/**
 * The one error type of Footfall's HTTP services. A handler throws `new AppError(code, message)`;
 * the shared `onError` answers `{ code, message, field? }` with the status from `codeToStatus`.
 * docs/errors.md lists every code.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  invalid_body: 400,
  invalid_parameter: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
  busy: 503,
  refusing: 503,
  query_timeout: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface AppErrorOptions {
  /** the input field or parameter at fault, for 400s */
  field?: string;
  /** seconds the client should wait, sent as `Retry-After` */
  retryAfter?: number;
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly field: string | undefined;
  readonly retryAfter: number | undefined;
  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.field = options.field;
    this.retryAfter = options.retryAfter;
  }
  get status(): number {
    return codeToStatus(this.code);
  }
}

/** Maps an error code to its HTTP status. */
export function codeToStatus(code: ErrorCode): number {
  return ERROR_STATUS[code];
}

/** The JSON body of every error answer. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  field?: string;
  request_id?: string;
}
