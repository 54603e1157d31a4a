import { AppError, type Logger, routeOf } from '@footfall/http';
import type { Context } from 'hono';
import { EngineUnavailableError } from './engine/deferred.ts';
import { EngineBusyError, isOutOfMemory, QueryAbortedError } from './engine/index.ts';

/**
 * How long a read may take and what happens when it cannot finish. A read runs under one signal
 * that is aborted when its client goes away (the gateway closes the forwarded request) or when
 * FOOTFALL_QUERY_TIMEOUT_SECONDS have passed, waiting for a connection included; the engine then
 * interrupts the statement, so nothing keeps running for nobody.
 */
export class ReadControl {
  readonly #timeoutMs: number;
  readonly #logger: Logger;

  constructor(options: { timeoutSeconds: number; logger: Logger }) {
    this.#timeoutMs = options.timeoutSeconds * 1000;
    this.#logger = options.logger;
  }

  /** The signal of one request's reads. Read it before the first await: it follows the client. */
  signal(c: Context): AbortSignal {
    return AbortSignal.any([c.req.raw.signal, AbortSignal.timeout(this.#timeoutMs)]);
  }

  /**
   * Runs a read, turning the engine's refusals into answers: a read past the time limit is 503
   * `query_timeout`, too many reads waiting is 503 `busy`, an engine not open yet (its server
   * unreachable) 503 `unavailable` saying why, all with Retry-After. A read stopped
   * because its client left has nobody to answer; it is logged at debug level.
   */
  async run<T>(c: Context, read: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const signal = this.signal(c);
    try {
      return await read(signal);
    } catch (error) {
      if (error instanceof QueryAbortedError) {
        const timedOut = error.reason instanceof DOMException && error.reason.name === 'TimeoutError';
        if (timedOut) {
          this.#logger.warn(
            { route: routeOf(c), timeout_ms: this.#timeoutMs },
            'read stopped at its time limit',
          );
          throw new AppError(
            'query_timeout',
            `the report took longer than ${this.#timeoutMs / 1000} s and was stopped; try a shorter period or fewer filters`,
            { retryAfter: 10 },
          );
        }
        this.#logger.debug({ route: routeOf(c) }, 'read stopped: the client went away');
        throw new AppError('unavailable', 'the request was cancelled', { retryAfter: 1 });
      }
      if (error instanceof EngineUnavailableError) {
        throw new AppError('unavailable', error.message, { retryAfter: 5 });
      }
      if (error instanceof EngineBusyError) {
        throw new AppError('busy', 'too many reports are running; try again shortly', { retryAfter: 2 });
      }
      if (isOutOfMemory(error)) {
        this.#logger.warn({ route: routeOf(c) }, 'read ran out of engine memory');
        throw new AppError('busy', 'the analytics engine is out of memory right now; try again shortly', {
          retryAfter: 5,
        });
      }
      throw error;
    }
  }
}
