import { dayString } from './buckets.ts';
import type { DuckDb } from './duckdb.ts';
import { rollback } from './loader.ts';
import type { RollupAccess } from './report.ts';
import { buildRollupStatements } from './rollup-sql.ts';
import { parseTimePlan, timePlanQuery } from './time-plan.ts';

/**
 * At most this many days are rolled up in one write: the tailer's next batch waits for one such
 * write at most (building takes about 16 ms per day at 1M demo events, 33 ms at 10M).
 */
export const ROLLUP_DAYS_PER_WRITE = 7;

export interface Rollups extends RollupAccess {
  /** days queued, days built and builds failed since open */
  readonly work: { queuedDays: number; builtDays: number; failedBuilds: number };
  /** stops building: writes queued from here on do nothing */
  close(): void;
}

/**
 * Builds the day rollups reports ask for (rollup-sql.ts), on the writer connection between the
 * tailer's batches: each run of at most ROLLUP_DAYS_PER_WRITE consecutive days in one
 * transaction, so a batch waits for one run at most. Reports go on meanwhile. A day already
 * queued is not queued again.
 * A failed build leaves the days raw (reports stay exact) and is reported to `onError`.
 */
export function createRollups(options: {
  db: DuckDb;
  write: <T>(work: () => Promise<T>) => Promise<T>;
  now: () => number;
  onError?: ((error: unknown) => void) | undefined;
}): Rollups {
  const { db, write } = options;
  /** site, zone and day of every day whose build is queued */
  const queued = new Set<string>();
  let closed = false;
  let builtDays = 0;
  let failedBuilds = 0;

  const build = async (site: string, timeZone: string, first: number, last: number) => {
    if (closed) return;
    const writer = db.writer;
    const { sql, params } = timePlanQuery(timeZone, dayString(first), dayString(last));
    const plan = parseTimePlan(
      timeZone,
      (await writer.runAndReadAll(sql, params as never)).getRowObjectsJS(),
    );
    await writer.run('BEGIN TRANSACTION');
    try {
      for (const statement of buildRollupStatements(site, plan, first, last)) {
        await writer.run(statement.sql, statement.params as never);
      }
      await writer.run('COMMIT');
    } catch (error) {
      await rollback(writer);
      throw error;
    }
  };

  return {
    get work() {
      return { queuedDays: queued.size, builtDays, failedBuilds };
    },
    now: options.now,
    request(site, timeZone, days) {
      if (closed) return;
      const key = (day: number) => `${site}\n${timeZone}\n${day}`;
      const wanted = [...new Set(days)].filter((day) => !queued.has(key(day))).sort((x, y) => x - y);
      // each run is queued now, so closing the engine (which awaits the writer) waits for them
      const flush = (from: number, to: number) => {
        const run: number[] = [];
        for (let day = from; day <= to; day++) {
          queued.add(key(day));
          run.push(day);
        }
        write(() => build(site, timeZone, from, to))
          .then(
            () => {
              builtDays += run.length;
            },
            (error: unknown) => {
              failedBuilds++;
              options.onError?.(error);
            },
          )
          .finally(() => {
            for (const day of run) queued.delete(key(day));
          });
      };
      let first = wanted[0];
      if (first === undefined) return;
      let previous = first;
      for (const day of wanted.slice(1)) {
        if (day !== previous + 1 || day - first >= ROLLUP_DAYS_PER_WRITE) {
          flush(first, previous);
          first = day;
        }
        previous = day;
      }
      flush(first, previous);
    },
    close() {
      closed = true;
    },
  };
}
