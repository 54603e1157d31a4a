import { dayString, localToInstant } from './buckets.ts';
import type { DuckDb } from './duckdb.ts';
import { inTransaction } from './loader.ts';
import type { RollupAccess } from './report.ts';
import { buildRollupStatements, extendRollupStatements } from './rollup-sql.ts';
import { instant, localDay, parseTimePlan, readTimePlan, type TimePlan, timePlanQuery } from './time-plan.ts';

const DAY_MS = 86_400_000;

/**
 * At most this many days are rolled up in one write: the tailer's next batch waits for one such
 * write at most (building takes about 16 ms per day at 1M demo events, 33 ms at 10M).
 */
export const ROLLUP_DAYS_PER_WRITE = 7;

/**
 * The day in progress is rolled up to the start of its oldest visit that may still change: one
 * with activity in the last SO_FAR_OPEN_MS (30 minutes of the visit rules, and 5 for events
 * still on their way through the WAL). Not before SO_FAR_MIN_MS of the day is over, not again
 * before SO_FAR_EVERY_MS more is, and not at all when a visit older than SO_FAR_PINNED_MS is
 * still open (its next event would drop the rows at once).
 */
export const SO_FAR_OPEN_MS = 35 * 60_000;
export const SO_FAR_MIN_MS = 60 * 60_000;
export const SO_FAR_EVERY_MS = 10 * 60_000;
export const SO_FAR_PINNED_MS = 6 * 3_600_000;

export interface Rollups extends RollupAccess {
  /** days queued, days built and builds failed since open */
  readonly work: { queuedDays: number; builtDays: number; failedBuilds: number };
  /** stops building: a run the writer already has is finished or skipped, the rest are dropped */
  close(): void;
}

/**
 * Builds the day rollups reports and `prepare` ask for (rollup-sql.ts), on the writer connection
 * between the tailer's batches: each run of at most ROLLUP_DAYS_PER_WRITE consecutive days in one
 * transaction, handed to the writer one run at a time, so a batch waits for one run at most.
 * Reports go on meanwhile. A day already queued is not queued again.
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
  /** when the day in progress of a site and zone was last asked for */
  const soFarAsked = new Map<string, number>();
  let closed = false;
  let builtDays = 0;
  let failedBuilds = 0;

  /** builds one run; false when the engine closed before it started */
  const build = async (site: string, timeZone: string, first: number, last: number) => {
    if (closed) return false;
    const writer = db.writer;
    const { sql, params } = timePlanQuery(timeZone, dayString(first), dayString(last));
    const plan = parseTimePlan(
      timeZone,
      (await writer.runAndReadAll(sql, params as never)).getRowObjectsJS(),
    );
    await inTransaction(writer, async () => {
      for (const statement of buildRollupStatements(site, plan, first, last)) {
        await writer.run(statement.sql, statement.params as never);
      }
    });
    return true;
  };

  /**
   * Rolls up the site's local day in progress so far (see SO_FAR_OPEN_MS): extends a listing of
   * it that is still current, or builds it anew. False when the engine closed before it started.
   */
  const buildSoFar = async (site: string, timeZone: string) => {
    if (closed) return false;
    const writer = db.writer;
    const now = options.now();
    const read = async (query: { sql: string; params: unknown[] }) =>
      (await writer.runAndReadAll(query.sql, query.params as never)).getRowObjectsJS();
    const around = Math.floor(now / DAY_MS);
    const wide = parseTimePlan(
      timeZone,
      await read(timePlanQuery(timeZone, dayString(around - 1), dayString(around + 1))),
    );
    const day = localDay(wide, now);
    const plan = parseTimePlan(timeZone, await read(timePlanQuery(timeZone, dayString(day), dayString(day))));
    const [open] = await read({
      sql: `SELECT epoch_ms(min(started_at))::DOUBLE AS first FROM sessions
        WHERE site = $1 AND started_at >= $2 AND ended_at >= $3`,
      params: [site, instant(plan.startMs), instant(now - SO_FAR_OPEN_MS)],
    });
    const firstOpen = typeof open?.['first'] === 'number' ? open['first'] : Number.POSITIVE_INFINITY;
    if (firstOpen < now - SO_FAR_PINNED_MS) return true;
    // whole minutes, so that a listing reads as what it is
    const through = Math.floor(Math.min(firstOpen, now - SO_FAR_OPEN_MS) / 60_000) * 60_000;
    if (through < plan.startMs + SO_FAR_MIN_MS) return true;
    const [listed] = await read({
      sql: 'SELECT epoch_ms(day_end)::DOUBLE AS through FROM rollup_days WHERE site = $1 AND tz = $2 AND day = $3',
      params: [site, timeZone, day],
    });
    const from = typeof listed?.['through'] === 'number' ? listed['through'] : undefined;
    if (from !== undefined && through < from + SO_FAR_EVERY_MS) return true;
    await inTransaction(writer, async () => {
      const statements =
        from === undefined
          ? buildRollupStatements(site, plan, day, day, through)
          : extendRollupStatements(site, plan, day, from, through);
      for (const statement of statements) await writer.run(statement.sql, statement.params as never);
    });
    return true;
  };

  /** runs waiting for the writer, in the order asked for */
  const pending: { build: () => Promise<boolean>; days: number; keys: string[] }[] = [];
  let building = false;
  // One run at a time is handed to the writer, the next once it is done: a batch the tailer
  // queues meanwhile goes before it, so it waits for one run at most however many are pending.
  const next = () => {
    if (building || closed) return;
    const run = pending.shift();
    if (run === undefined) return;
    building = true;
    write(run.build)
      .then(
        (built) => {
          if (built) builtDays += run.days;
        },
        (error: unknown) => {
          failedBuilds++;
          options.onError?.(error);
        },
      )
      .finally(() => {
        for (const key of run.keys) queued.delete(key);
        building = false;
        next();
      });
  };

  return {
    get work() {
      return { queuedDays: queued.size, builtDays, failedBuilds };
    },
    now: options.now,
    request(site, timeZone, days, ahead = true) {
      if (closed) return;
      const key = (day: number) => `${site}\n${timeZone}\n${day}`;
      const wanted = [...new Set(days)].filter((day) => !queued.has(key(day))).sort((x, y) => x - y);
      const runs: typeof pending = [];
      const add = (from: number, to: number) => {
        const keys: string[] = [];
        for (let day = from; day <= to; day++) keys.push(key(day));
        for (const k of keys) queued.add(k);
        runs.push({ build: () => build(site, timeZone, from, to), days: keys.length, keys });
      };
      let first = wanted[0];
      if (first === undefined) return;
      let previous = first;
      for (const day of wanted.slice(1)) {
        if (day !== previous + 1 || day - first >= ROLLUP_DAYS_PER_WRITE) {
          add(first, previous);
          first = day;
        }
        previous = day;
      }
      add(first, previous);
      // a report's days go before a preparation's (someone waits for them); a preparation's
      // newest first, as the dashboard opens on the last days
      if (ahead) pending.unshift(...runs);
      else pending.push(...runs.reverse());
      next();
    },
    requestSoFar(site, timeZone) {
      const key = `${site}\n${timeZone}\nso far`;
      const last = soFarAsked.get(key);
      if (closed || queued.has(key) || (last !== undefined && options.now() - last < SO_FAR_EVERY_MS)) return;
      soFarAsked.set(key, options.now());
      queued.add(key);
      pending.push({ build: () => buildSoFar(site, timeZone), days: 0, keys: [key] });
      next();
    },
    close() {
      // the run the writer has is finished (closing awaits the writer); the others are dropped
      closed = true;
      for (const run of pending.splice(0)) for (const key of run.keys) queued.delete(key);
    },
  };
}

/** A listed rollup day: its local day and the instant up to which its visits are rolled up. */
export interface RolledDay {
  day: number;
  /** the day's end when the whole day is rolled up, else the start of the visits left raw */
  through: number;
}

/** Whether a listed day holds the whole local day (else it holds the visits before `through`). */
export const isWholeDay = (plan: TimePlan, rolled: RolledDay): boolean =>
  rolled.through >= localToInstant(plan, (rolled.day + 1) * DAY_MS);

/**
 * The local days first..last that are over at `now` and not wholly in `rolled` (days rolled up
 * whole): the ones to build.
 */
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

/** The listed rollup days first..last of a site in a zone, in order (`RolledDay`). */
export const rolledDaysQuery = (site: string, timeZone: string, first: number, last: number) => ({
  sql: `SELECT day, epoch_ms(day_end)::DOUBLE AS through FROM rollup_days
    WHERE site = $1 AND tz = $2 AND day BETWEEN $3 AND $4 ORDER BY day`,
  params: [site, timeZone, first, last],
});

/**
 * Asks for every day of a site's history in a zone that is over and not rolled up whole, as a
 * report of the whole history would, and for the day in progress so far: the first report of
 * any period then finds its days built. Returns how many past days it asked for (none for a
 * site without visits).
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
    (await db.read(rolledDaysQuery(site, timeZone, first, last)))
      .map((r) => ({ day: Number(r['day']), through: Number(r['through']) }))
      .filter((r) => isWholeDay(plan, r))
      .map((r) => r.day),
  );
  const days = daysToBuild(plan, first, last, rolled, now);
  if (days.length > 0) rollups.request(site, timeZone, days, false);
  rollups.requestSoFar(site, timeZone);
  return days.length;
}

/**
 * Removes a site's rollup rows of every zone but `timeZone`, on the writer (`write`): once a
 * site's zone changed, reports never read the old zone's rows again. Reads first, so a site with
 * rows of its zone only costs one small read.
 */
export async function dropOtherZones(
  db: DuckDb,
  write: <T>(work: () => Promise<T>) => Promise<T>,
  site: string,
  timeZone: string,
): Promise<void> {
  const other = 'site = $1 AND tz <> $2';
  const [row] = await db.read({
    sql: `SELECT count(*)::DOUBLE AS n FROM rollup_days WHERE ${other}`,
    params: [site, timeZone],
  });
  if (!row || row['n'] === 0) return;
  await write(() =>
    inTransaction(db.writer, async () => {
      await db.writer.run(`DELETE FROM day_rollup WHERE ${other}`, [site, timeZone]);
      await db.writer.run(`DELETE FROM rollup_days WHERE ${other}`, [site, timeZone]);
    }),
  );
}
