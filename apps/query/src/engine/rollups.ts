import { dayString, localToInstant } from './buckets.ts';
import type { DuckDb } from './duckdb.ts';
import { rollback } from './loader.ts';
import type { RollupAccess } from './report.ts';
import { buildRollupStatements } from './rollup-sql.ts';
import { localDay, parseTimePlan, readTimePlan, type TimePlan, timePlanQuery } from './time-plan.ts';

const DAY_MS = 86_400_000;

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

/** The local days first..last that are over at `now` and not in `rolled`: the ones to build. */
export function daysToBuild(
  plan: TimePlan,
  first: number,
  last: number,
  rolled: ReadonlySet<number>,
  now: number,
): number[] {
  const over: number[] = [];
  for (let d = first; d <= last; d++) {
    if (!rolled.has(d) && localToInstant(plan, (d + 1) * DAY_MS) <= now) over.push(d);
  }
  return over;
}

/** The rolled-up local days first..last of a site in a zone, in order. */
export const rolledDaysQuery = (site: string, timeZone: string, first: number, last: number) => ({
  sql: 'SELECT day FROM rollup_days WHERE site = $1 AND tz = $2 AND day BETWEEN $3 AND $4 ORDER BY day',
  params: [site, timeZone, first, last],
});

/**
 * Asks for every day of a site's history in a zone that is over and not rolled up, as a report
 * of the whole history would: the first report of any period then finds its days built.
 * Returns how many days it asked for (none for a site without visits).
 */
export async function requestHistory(
  db: DuckDb,
  rollups: RollupAccess,
  site: string,
  timeZone: string,
): Promise<number> {
  const [row] = await db.read({
    sql: 'SELECT epoch_ms(min(started_at))::DOUBLE AS first FROM sessions WHERE site = $1',
    params: [site],
  });
  const firstVisit = row?.['first'];
  if (typeof firstVisit !== 'number') return 0;
  const now = rollups.now();
  // UTC days one either side of the local ones: a plan covers every instant of both ends
  const plan = await readTimePlan(
    db,
    timeZone,
    {
      from: dayString(Math.floor(firstVisit / DAY_MS) - 1),
      to: dayString(Math.floor(now / DAY_MS) + 1),
    },
    {},
  );
  const first = localDay(plan, firstVisit);
  const last = localDay(plan, now);
  const rolled = new Set(
    (await db.read(rolledDaysQuery(site, timeZone, first, last))).map((r) => Number(r['day'])),
  );
  const days = daysToBuild(plan, first, last, rolled, now);
  if (days.length > 0) rollups.request(site, timeZone, days);
  return days.length;
}
