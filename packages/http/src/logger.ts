import pino, { type Logger } from 'pino';

/**
 * A pino logger for one process. Header values that carry credentials are redacted, and no
 * Footfall code passes a visitor address to a log call: addresses live only in ingest's memory.
 */
export function createLogger(options: {
  level: string;
  name: string;
  destination?: pino.DestinationStream;
}): Logger {
  return pino(
    {
      name: options.name,
      level: options.level,
      base: { proc: options.name },
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'req.headers["x-footfall-proxy-key"]',
          'req.headers["x-real-ip"]',
          'req.headers["x-forwarded-for"]',
          'secret',
          'token',
        ],
        censor: '[redacted]',
      },
    },
    options.destination,
  );
}

/**
 * Writes out what the logger holds, now: pino's stdout stream writes asynchronously, so a line
 * logged right before the thread blocks (a test seam) would otherwise wait for the block to end.
 */
export function flushLogSync(logger: Logger): void {
  const stream = (logger as unknown as Record<symbol, { flushSync?: () => void }>)[pino.symbols.streamSym];
  try {
    stream?.flushSync?.();
  } catch {
    // nothing written yet, or a stream that cannot: the line comes with the next write
  }
}

export type { Logger };
