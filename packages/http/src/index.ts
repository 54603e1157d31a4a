export { API_BODY_BYTES, bodyLimitFor, bodyTooLarge, IMPORT_BODY_BYTES, limitBody } from './body-limit.ts';
export {
  AppError,
  type AppErrorOptions,
  codeToStatus,
  ERROR_STATUS,
  type ErrorBody,
  type ErrorCode,
} from './errors.ts';
export { LIVENESS_PATH, livenessRoutes } from './liveness.ts';
export { createLogger, flushLogSync, type Logger } from './logger.ts';
export { errorResponse, notFound, onError, routeOf } from './on-error.ts';
export {
  BlockedDestination,
  checkDestination,
  type GuardOptions,
  guardedAgent,
  guardedFetch,
  loadUndici,
  parseIPv4,
  privateReason,
} from './outbound.ts';
export { boundPort, drainServer, listen } from './server.ts';
export { issuePath, parseInput } from './validate.ts';
