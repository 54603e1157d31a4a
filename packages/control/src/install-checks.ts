import type { ControlDb } from './open.ts';

/** What the daily install check saw on a site's homepage (apps/query/src/alerts/install-check.ts). */
export interface InstallOutcome {
  /** `found`: the tracker is on the homepage or in one of its scripts; `missing`: it is not; `unreachable`: the page could not be read */
  tracker: 'found' | 'missing' | 'unreachable';
  /** why it could not be read, in words without the URL; null otherwise */
  detail: string | null;
}

export interface InstallCheck {
  siteId: string;
  checkedAt: number;
  outcome: InstallOutcome;
  /** when the site was found to have stopped sending visits; null while it sends them */
  stoppedAt: number | null;
}

const toCheck = (r: {
  site_id: string;
  checked_at: number;
  outcome: string;
  stopped_at: number | null;
}): InstallCheck => ({
  siteId: r.site_id,
  checkedAt: r.checked_at,
  outcome: JSON.parse(r.outcome) as InstallOutcome,
  stoppedAt: r.stopped_at,
});

/** A site's last install check; undefined before the first. */
export function installCheckOf(ctl: Pick<ControlDb, 'raw'>, siteId: string): InstallCheck | undefined {
  const row = ctl.raw.prepare('SELECT * FROM install_checks WHERE site_id = ?').get(siteId) as
    | Parameters<typeof toCheck>[0]
    | undefined;
  return row === undefined ? undefined : toCheck(row);
}

/** Every site's last install check. */
export function installChecks(ctl: Pick<ControlDb, 'raw'>): InstallCheck[] {
  return (ctl.raw.prepare('SELECT * FROM install_checks').all() as Parameters<typeof toCheck>[0][]).map(
    toCheck,
  );
}

/** Records a check (its outcome and whether the site is stopped). */
export function recordInstallCheck(
  ctl: ControlDb,
  siteId: string,
  outcome: InstallOutcome,
  stoppedAt: number | null,
): void {
  ctl.raw
    .prepare(
      `INSERT INTO install_checks (site_id, checked_at, outcome, stopped_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (site_id) DO UPDATE SET checked_at = excluded.checked_at, outcome = excluded.outcome,
         stopped_at = excluded.stopped_at`,
    )
    .run(siteId, ctl.now(), JSON.stringify(outcome), stoppedAt);
}

/** A stopped site sends visits again: it is no longer stopped (the last outcome stays). */
export function clearStopped(ctl: ControlDb, siteId: string): void {
  ctl.raw.prepare('UPDATE install_checks SET stopped_at = NULL WHERE site_id = ?').run(siteId);
}

/** A site's favicon as fetched: its type and bytes, or null when it has none (or none could be read). */
export function faviconOf(
  ctl: Pick<ControlDb, 'raw'>,
  siteId: string,
): { fetchedAt: number; image: { contentType: string; bytes: Buffer } | null } | undefined {
  const row = ctl.raw.prepare('SELECT * FROM site_favicons WHERE site_id = ?').get(siteId) as
    | { fetched_at: number; content_type: string | null; bytes: Buffer | null }
    | undefined;
  if (row === undefined) return undefined;
  return {
    fetchedAt: row.fetched_at,
    image:
      row.content_type === null || row.bytes === null
        ? null
        : { contentType: row.content_type, bytes: row.bytes },
  };
}

/** When each site's favicon was last fetched, and whether it has one. */
export function faviconsFetched(
  ctl: Pick<ControlDb, 'raw'>,
): Map<string, { fetchedAt: number; found: boolean }> {
  const rows = ctl.raw
    .prepare('SELECT site_id, fetched_at, bytes IS NOT NULL AS found FROM site_favicons')
    .all() as { site_id: string; fetched_at: number; found: number }[];
  return new Map(rows.map((r) => [r.site_id, { fetchedAt: r.fetched_at, found: r.found === 1 }]));
}

export function storeFavicon(
  ctl: ControlDb,
  siteId: string,
  image: { contentType: string; bytes: Buffer } | null,
): void {
  ctl.raw
    .prepare(
      `INSERT INTO site_favicons (site_id, fetched_at, content_type, bytes) VALUES (?, ?, ?, ?)
       ON CONFLICT (site_id) DO UPDATE SET fetched_at = excluded.fetched_at,
         content_type = excluded.content_type, bytes = excluded.bytes`,
    )
    .run(siteId, ctl.now(), image?.contentType ?? null, image?.bytes ?? null);
}
