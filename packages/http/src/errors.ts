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
  /** an import's file is not what its format says (docs/imports.md): the message names file and line */
  invalid_import: 422,
  unsupported_media_type: 415,
  rate_limited: 429,
  /** a payment provider refused the API key, or it lacks a permission (named in `permission`) */
  provider_key_rejected: 400,
  provider_permission_missing: 400,
  /** an outgoing destination (alert webhook) is private, internal or not a web address */
  destination_refused: 400,
  /** e-mail alerts and reports need FOOTFALL_SMTP_URL */
  mail_not_configured: 400,
  internal: 500,
  /** a payment provider could not be reached, or failed while reconciling */
  provider_unreachable: 502,
  provider_sync_failed: 502,
  /** the mail server refused an e-mail sent at once (e-mail reports' "send me one now"), or was not reached */
  mail_failed: 502,
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
  /** a payment provider's permission the API key lacks, as the provider names it */
  permission?: string;
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly field: string | undefined;
  readonly retryAfter: number | undefined;
  readonly permission: string | undefined;
  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.field = options.field;
    this.retryAfter = options.retryAfter;
    this.permission = options.permission;
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
  permission?: string;
  request_id?: string;
}
