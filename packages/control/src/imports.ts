import type { ControlDb } from './open.ts';
import { randomId } from './tokens.ts';

/**
 * Data imported from another tool (docs/imports.md): daily aggregates kept apart from native data,
 * by import. An import counts in reports once it is `done`; while `importing` its rows are being
 * written in chunks, and one a stop left `importing` is removed at the next start, so nothing
 * half-imported is ever read.
 */
export type ImportSource = 'plausible' | 'ga4' | 'umami' | 'footfall';
/** Sources whose imports are daily aggregates in imported_days and imported_rows (Umami's and Footfall's are events). */
const AGGREGATED = "('plausible', 'ga4')";

export interface Import {
  id: string;
  siteId: string;
  source: ImportSource;
  /** the file or property it came from */
  name: string;
  state: 'importing' | 'done';
  /** the first and last day kept, null when none was */
  firstDay: string | null;
  lastDay: string | null;
  rowsRead: number;
  rowsSkipped: number;
  /** rows skipped, by reason */
  skipped: Record<string, number>;
  /** who ran it; null from the command line, or once they were removed */
  personId: string | null;
  createdAt: number;
  finishedAt: number | null;
}

/** One imported day's totals. */
export interface ImportedDay {
  day: string;
  visitors: number;
  visits: number;
  pageviews: number;
  bounces: number;
  /** the day's total visit duration, seconds */
  duration: number;
}

/** The dimensions an import can hold rows of: report breakdown names. */
export const IMPORTED_DIMENSIONS = [
  'channel',
  'referrer',
  'source',
  'medium',
  'campaign',
  'term',
  'content',
  'entry_page',
  'exit_page',
  'country',
  'device',
  'browser',
  'os',
  'pages',
  'events',
] as const;
export type ImportedDimension = (typeof IMPORTED_DIMENSIONS)[number];

/** One value of a dimension on one day (events: `events` counted, visits as visitors). */
export interface ImportedRow extends ImportedDay {
  dimension: ImportedDimension;
  /** null: visits without one (no referrer) */
  value: string | null;
  events: number;
}

/** A value's totals over a range of days. */
export type ImportedTotals = Omit<ImportedRow, 'day' | 'dimension'>;

interface ImportRecord {
  id: string;
  site_id: string;
  source: ImportSource;
  name: string;
  state: 'importing' | 'done';
  first_day: string | null;
  last_day: string | null;
  rows_read: number;
  rows_skipped: number;
  skipped: string;
  person_id: string | null;
  created_at: number;
  finished_at: number | null;
}

const toImport = (r: ImportRecord): Import => ({
  id: r.id,
  siteId: r.site_id,
  source: r.source,
  name: r.name,
  state: r.state,
  firstDay: r.first_day,
  lastDay: r.last_day,
  rowsRead: r.rows_read,
  rowsSkipped: r.rows_skipped,
  skipped: JSON.parse(r.skipped) as Record<string, number>,
  personId: r.person_id,
  createdAt: r.created_at,
  finishedAt: r.finished_at,
});

/** Starts an import: its rows are added in chunks, then it is finished or removed. */
export function beginImport(
  ctl: ControlDb,
  o: { siteId: string; source: ImportSource; name: string; personId: string | null; now?: number },
): string {
  const id = `imp_${randomId(12)}`;
  ctl.raw
    .prepare(
      `INSERT INTO imports (id, site_id, source, name, state, person_id, created_at)
       VALUES (?, ?, ?, ?, 'importing', ?, ?)`,
    )
    .run(id, o.siteId, o.source, o.name, o.personId, o.now ?? Date.now());
  return id;
}

/** Adds a chunk of an import's days and rows in one transaction. */
export function addImported(
  ctl: ControlDb,
  importId: string,
  days: readonly ImportedDay[],
  rows: readonly ImportedRow[],
): void {
  const day = ctl.raw.prepare(
    `INSERT INTO imported_days (import_id, day, visitors, visits, pageviews, bounces, duration)
     VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (import_id, day) DO UPDATE SET visitors = visitors + excluded.visitors,
       visits = visits + excluded.visits, pageviews = pageviews + excluded.pageviews,
       bounces = bounces + excluded.bounces, duration = duration + excluded.duration`,
  );
  const row = ctl.raw.prepare(
    `INSERT INTO imported_rows (import_id, dimension, day, value, visitors, visits, pageviews, bounces, duration, events)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  ctl.raw.transaction(() => {
    for (const d of days) day.run(importId, d.day, d.visitors, d.visits, d.pageviews, d.bounces, d.duration);
    for (const r of rows) {
      row.run(
        importId,
        r.dimension,
        r.day,
        r.value,
        r.visitors,
        r.visits,
        r.pageviews,
        r.bounces,
        r.duration,
        r.events,
      );
    }
  })();
}

/** Marks an import done: from now on reports read it. Its kept range is read from its days. */
export function finishImport(
  ctl: ControlDb,
  importId: string,
  o: {
    rowsRead: number;
    skipped: Record<string, number>;
    /** the days an import of events holds (an aggregated one's are read from its days) */
    range?: { first: string | null; last: string | null };
    now?: number;
  },
): Import {
  const range =
    o.range ??
    (ctl.raw
      .prepare('SELECT MIN(day) AS first, MAX(day) AS last FROM imported_days WHERE import_id = ?')
      .get(importId) as { first: string | null; last: string | null });
  const skipped = Object.values(o.skipped).reduce((a, b) => a + b, 0);
  ctl.raw
    .prepare(
      `UPDATE imports SET state = 'done', first_day = ?, last_day = ?, rows_read = ?, rows_skipped = ?,
         skipped = ?, finished_at = ? WHERE id = ?`,
    )
    .run(
      range.first,
      range.last,
      o.rowsRead,
      skipped,
      JSON.stringify(o.skipped),
      o.now ?? Date.now(),
      importId,
    );
  return getImport(ctl, importId) as Import;
}

/**
 * Removes an import and its rows, in chunks so a large one does not hold the database for long;
 * false when there was none. Reports stop reading it at the first step.
 */
export function removeImport(ctl: ControlDb, importId: string): boolean {
  const found = ctl.raw.prepare(`UPDATE imports SET state = 'importing' WHERE id = ?`).run(importId);
  if (found.changes === 0) return false;
  const chunk = ctl.raw.prepare(
    'DELETE FROM imported_rows WHERE rowid IN (SELECT rowid FROM imported_rows WHERE import_id = ? LIMIT 20000)',
  );
  while (chunk.run(importId).changes > 0);
  ctl.raw.prepare('DELETE FROM imported_days WHERE import_id = ?').run(importId);
  ctl.raw.prepare('DELETE FROM imports WHERE id = ?').run(importId);
  return true;
}

/** Removes an import's days and rows from `day` on (a month that did not finish). */
export function removeImportedFrom(ctl: ControlDb, importId: string, day: string): void {
  ctl.raw.transaction(() => {
    ctl.raw.prepare('DELETE FROM imported_rows WHERE import_id = ? AND day >= ?').run(importId, day);
    ctl.raw.prepare('DELETE FROM imported_days WHERE import_id = ? AND day >= ?').run(importId, day);
  })();
}

/** Removes what imports a stop interrupted left; returns how many there were. */
export function removeUnfinishedImports(ctl: ControlDb): number {
  const ids = ctl.raw.prepare(`SELECT id FROM imports WHERE state = 'importing'`).pluck().all() as string[];
  for (const id of ids) removeImport(ctl, id);
  return ids.length;
}

export function getImport(ctl: ControlDb, importId: string): Import | undefined {
  const r = ctl.raw.prepare('SELECT * FROM imports WHERE id = ?').get(importId) as ImportRecord | undefined;
  return r && toImport(r);
}

/** A site's imports, newest first (those still importing included). */
export function listImports(ctl: ControlDb, siteId: string): Import[] {
  return (
    ctl.raw
      .prepare('SELECT * FROM imports WHERE site_id = ? ORDER BY created_at DESC, id')
      .all(siteId) as ImportRecord[]
  ).map(toImport);
}

/** The days a site's finished imports of aggregates hold, as ranges with their source, oldest first. */
export function importedRanges(
  ctl: ControlDb,
  siteId: string,
): { source: ImportSource; from: string; to: string }[] {
  return ctl.raw
    .prepare(
      `SELECT source, first_day AS "from", last_day AS "to" FROM imports
       WHERE site_id = ? AND state = 'done' AND first_day IS NOT NULL AND source IN ${AGGREGATED}
       ORDER BY first_day`,
    )
    .all(siteId) as { source: ImportSource; from: string; to: string }[];
}

/** Whether any finished import of the site holds the day. */
export function isDayImported(ctl: ControlDb, siteId: string, day: string): boolean {
  return (
    ctl.raw
      .prepare(
        `SELECT 1 FROM imported_days d JOIN imports i ON i.id = d.import_id
         WHERE i.site_id = ? AND i.state = 'done' AND d.day = ?`,
      )
      .get(siteId, day) !== undefined
  );
}

/** Each imported day of the site within `from`..`to` (local dates), in order. */
export function importedDays(ctl: ControlDb, siteId: string, from: string, to: string): ImportedDay[] {
  return ctl.raw
    .prepare(
      `SELECT d.day, SUM(d.visitors) AS visitors, SUM(d.visits) AS visits, SUM(d.pageviews) AS pageviews,
         SUM(d.bounces) AS bounces, SUM(d.duration) AS duration
       FROM imported_days d JOIN imports i ON i.id = d.import_id
       WHERE i.site_id = ? AND i.state = 'done' AND d.day BETWEEN ? AND ?
       GROUP BY d.day ORDER BY d.day`,
    )
    .all(siteId, from, to) as ImportedDay[];
}

/**
 * A dimension's values over `from`..`to`, most visitors first (events: most events), at most
 * `limit`; daily uniques are summed, so a visitor of several days counts once a day.
 */
export function importedBreakdown(
  ctl: ControlDb,
  o: {
    siteId: string;
    dimension: ImportedDimension;
    from: string;
    to: string;
    limit: number;
    /** only values containing it, any case */
    search?: string;
  },
): ImportedTotals[] {
  const order = o.dimension === 'events' ? 'events DESC, visitors DESC' : 'visitors DESC, pageviews DESC';
  return ctl.raw
    .prepare(
      `SELECT r.value, SUM(r.visitors) AS visitors, SUM(r.visits) AS visits, SUM(r.pageviews) AS pageviews,
         SUM(r.bounces) AS bounces, SUM(r.duration) AS duration, SUM(r.events) AS events
       FROM imported_rows r JOIN imports i ON i.id = r.import_id
       WHERE i.site_id = ? AND i.state = 'done' AND r.dimension = ? AND r.day BETWEEN ? AND ?
         AND (? IS NULL OR instr(lower(r.value), lower(?)) > 0)
       GROUP BY r.value ORDER BY ${order}, r.value LIMIT ?`,
    )
    .all(
      o.siteId,
      o.dimension,
      o.from,
      o.to,
      o.search ?? null,
      o.search ?? null,
      o.limit,
    ) as ImportedTotals[];
}
