import { bareHost, parseDomain, RETENTION_MAX_DAYS, RETENTION_MIN_DAYS } from '@footfall/config';
import { AppError } from '@footfall/http';
import type Database from 'better-sqlite3';
import { consentColumns } from './consent-bar.ts';
import type { ControlDb } from './open.ts';
import type { SitesTable } from './schema.ts';
import { NO_SHIELDS, normalizeShields, type Shields, shieldsOf, storedShields } from './shields.ts';
import { randomId, randomToken } from './tokens.ts';

/** A site as services and the gateway see it. */
/**
 * The parts of a site an owner may switch off (spec, What the service does 7): off, every way into
 * it leaves the dashboard and the API refuses its reads and writes with 404; what it stored stays.
 */
export const MODULES = [
  'notes',
  'goals',
  'funnels',
  'revenue',
  'retention',
  'vitals',
  'crawlers',
  'milestones',
  'shares',
] as const;
export type ModuleName = (typeof MODULES)[number];

export interface Site {
  id: string;
  domain: string;
  timezone: string;
  currency: string;
  cookieless: boolean;
  /** per-site secret for `X-Footfall-Proxy-Key` */
  proxyKey: string;
  cityRecording: boolean;
  icon: string | null;
  colour: string | null;
  createdAt: number;
  /** whether its tracker shows the consent bar and counts only after the visitor accepts */
  consentBar: boolean;
  /** the bar's text; null for the default (consent-bar.ts) */
  consentText: string | null;
  /** `#rrggbb`, lower case; null for the default */
  consentBackground: string | null;
  consentForeground: string | null;
  /** whether each module is on */
  modules: Record<ModuleName, boolean>;
  /** days of visits it keeps; null for the instance's setting (FOOTFALL_RETENTION_DAYS) */
  retentionDays: number | null;
  /** its website id in Umami, so Umami's script can keep sending to Footfall (null: none) */
  umamiWebsiteId: string | null;
  /** traffic never counted (shields.ts) */
  shields: Shields;
}

/** Fields an owner may set. */
export interface SiteFields {
  domain: string;
  timezone: string;
  currency: string;
  cookieless: boolean;
  cityRecording: boolean;
  icon: string | null;
  colour: string | null;
  consentBar: boolean;
  consentText: string | null;
  consentBackground: string | null;
  consentForeground: string | null;
  /** modules to switch on (true) or off (false); the others stay as they are */
  modules: Partial<Record<ModuleName, boolean>>;
  retentionDays: number | null;
  umamiWebsiteId: string | null;
  /** the lists to replace; a list left out stays as it is */
  shields: Partial<Record<keyof Shields, unknown>>;
}

export const SITE_DEFAULTS = {
  timezone: 'UTC',
  currency: 'USD',
  cookieless: false,
  cityRecording: false,
  consentBar: false,
} as const;

const toSite = (r: SitesTable): Site => ({
  id: r.id,
  domain: r.domain,
  timezone: r.timezone,
  currency: r.currency,
  cookieless: r.cookieless === 1,
  proxyKey: r.proxy_key,
  cityRecording: r.city_recording === 1,
  icon: r.icon,
  colour: r.colour,
  createdAt: r.created_at,
  consentBar: r.consent_bar === 1,
  consentText: r.consent_text,
  consentBackground: r.consent_background,
  consentForeground: r.consent_foreground,
  modules: modulesOf(r.modules_off),
  retentionDays: r.retention_days ?? null,
  umamiWebsiteId: r.umami_website_id ?? null,
  shields: shieldsOf(r.shields),
});

/** Each module on or off, from the stored list of those switched off (unknown names ignored). */
function modulesOf(stored: string | undefined): Record<ModuleName, boolean> {
  let off: unknown = [];
  try {
    off = JSON.parse(stored ?? '[]');
  } catch {
    off = [];
  }
  const list = Array.isArray(off) ? off : [];
  return Object.fromEntries(MODULES.map((m) => [m, !list.includes(m)])) as Record<ModuleName, boolean>;
}

const bad = (field: string, problem: string) =>
  new AppError('invalid_body', `${field}: ${problem}`, { field });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** An Umami website id (a UUID, stored lower case), or null for none; anything else is a 400. */
function umamiIdOf(id: string | null): string | null {
  if (id === null || id.trim() === '') return null;
  const value = id.trim().toLowerCase();
  if (!UUID.test(value)) throw bad('umami_website_id', 'must be the website id Umami shows, a UUID');
  return value;
}

/** A site's own retention in days, or null for the instance's; out of range is a 400. */
function retentionOf(days: number | null): number | null {
  if (days === null) return null;
  if (!Number.isInteger(days) || days < RETENTION_MIN_DAYS || days > RETENTION_MAX_DAYS) {
    throw bad(
      'retention_days',
      `must be a whole number of days from ${RETENTION_MIN_DAYS} to ${RETENTION_MAX_DAYS}, or null`,
    );
  }
  return days;
}

/**
 * A bare domain from what was typed or pasted (`https://www.Example.com/x` -> `example.com`): a
 * leading `www.` is dropped, so `www.example.com` and `example.com` are one site.
 */
export function normalizeDomain(input: string): string {
  const d = parseDomain(input);
  if (!d.ok) throw bad('domain', d.problem);
  return d.value;
}

/** An IANA zone name's shape: `UTC`, `Europe/Berlin`, `America/Argentina/Buenos_Aires`, `Etc/GMT+5`. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;

/**
 * The time zone as the owner named it, once Intl has accepted it as an IANA zone name (offsets such
 * as `+02:00` are not names), or a 400. Intl would answer with its own canonical name, which for
 * some zones is the older one (`Europe/Kyiv` -> `Europe/Kiev`, `Asia/Kolkata` -> `Asia/Calcutta`):
 * the owner's choice is kept, only spelt in Intl's case when it is the same name (`europe/berlin`).
 */
export function normalizeTimezone(input: string): string {
  const name = input.trim();
  let canonical: string;
  try {
    if (!ZONE_NAME.test(name)) throw new RangeError(name);
    canonical = canonicalTimeZone(name);
  } catch {
    throw bad('timezone', 'not a time zone (use an IANA name such as Europe/Berlin)');
  }
  return canonical.toLowerCase() === name.toLowerCase() ? canonical : name;
}

const canonicalZones = new Map<string, string>();

/**
 * The name Intl gives a zone (`Europe/Kyiv` -> `Europe/Kiev` on Node 20): what the analytics engine
 * is handed, since an older name is known to every ICU that knows the newer one. Throws RangeError
 * for a zone Intl does not know.
 */
export function canonicalTimeZone(name: string): string {
  let canonical = canonicalZones.get(name);
  if (canonical === undefined) {
    canonical = new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
    if (canonicalZones.size > 1000) canonicalZones.clear();
    canonicalZones.set(name, canonical);
  }
  return canonical;
}

let currencies: Set<string> | undefined;
/** An ISO 4217 code (upper case), or a 400. */
export function normalizeCurrency(input: string): string {
  currencies ??= new Set(Intl.supportedValuesOf('currency'));
  const c = input.trim().toUpperCase();
  if (!currencies.has(c)) throw bad('currency', 'not an ISO 4217 currency code');
  return c;
}

const statements = new WeakMap<
  Database.Database,
  {
    one: Database.Statement;
    byDomain: Database.Statement;
    byUmamiId: Database.Statement;
    all: Database.Statement;
  }
>();
const prepared = (raw: Database.Database) => {
  let s = statements.get(raw);
  if (!s) {
    s = {
      one: raw.prepare('SELECT * FROM sites WHERE id = ?'),
      byDomain: raw.prepare('SELECT * FROM sites WHERE domain = ?'),
      byUmamiId: raw.prepare('SELECT * FROM sites WHERE umami_website_id = ?'),
      all: raw.prepare('SELECT * FROM sites ORDER BY created_at, domain'),
    };
    statements.set(raw, s);
  }
  return s;
};

/** One site, read synchronously through a prepared statement (for the ingest gateway's hot path). */
export function getSite(ctl: Pick<ControlDb, 'raw'>, id: string): Site | undefined {
  const row = prepared(ctl.raw).one.get(id) as SitesTable | undefined;
  return row ? toSite(row) : undefined;
}

/** The site of a stored (bare) domain, read synchronously (the gateway's Plausible-compatible endpoint). */
export function getSiteByDomain(ctl: Pick<ControlDb, 'raw'>, domain: string): Site | undefined {
  const row = prepared(ctl.raw).byDomain.get(domain) as SitesTable | undefined;
  return row ? toSite(row) : undefined;
}

/** The site with this Umami website id (lower case), read synchronously (the gateway's Umami endpoint). */
export function getSiteByUmamiId(ctl: Pick<ControlDb, 'raw'>, umamiId: string): Site | undefined {
  const row = prepared(ctl.raw).byUmamiId.get(umamiId) as SitesTable | undefined;
  return row ? toSite(row) : undefined;
}

/** Every site, oldest first, read synchronously. */
export function listSites(ctl: Pick<ControlDb, 'raw'>): Site[] {
  return (prepared(ctl.raw).all.all() as SitesTable[]).map(toSite);
}

/** Creates a site with a new random id and proxy key. A domain that already has a site is a 409. */
export async function createSite(
  ctl: ControlDb,
  input: Partial<SiteFields> & { domain: string },
): Promise<Site> {
  const row: SitesTable = {
    id: randomId(),
    domain: normalizeDomain(input.domain),
    timezone: normalizeTimezone(input.timezone ?? SITE_DEFAULTS.timezone),
    currency: normalizeCurrency(input.currency ?? SITE_DEFAULTS.currency),
    cookieless: (input.cookieless ?? SITE_DEFAULTS.cookieless) ? 1 : 0,
    proxy_key: randomToken(24),
    city_recording: (input.cityRecording ?? SITE_DEFAULTS.cityRecording) ? 1 : 0,
    icon: input.icon ?? null,
    colour: input.colour ?? null,
    created_at: ctl.now(),
    consent_bar: (input.consentBar ?? SITE_DEFAULTS.consentBar) ? 1 : 0,
    consent_text: null,
    consent_background: null,
    consent_foreground: null,
    modules_off: '[]',
    retention_days: retentionOf(input.retentionDays ?? null),
    umami_website_id: umamiIdOf(input.umamiWebsiteId ?? null),
    shields: input.shields === undefined ? null : storedShields(normalizeShields(input.shields, NO_SHIELDS)),
    ...consentColumns(input, { background: null, foreground: null }),
  };
  const r = await ctl.db
    .insertInto('sites')
    .values(row)
    .onConflict((oc) => oc.column('domain').doNothing())
    .executeTakeFirst();
  if (Number(r.numInsertedOrUpdatedRows ?? 0) === 0) {
    throw new AppError('conflict', `a site for ${row.domain} exists already`, { field: 'domain' });
  }
  return toSite(row);
}

/** Changes some fields of a site; a bad field is a 400 and changes nothing. */
export async function updateSite(ctl: ControlDb, id: string, patch: Partial<SiteFields>): Promise<Site> {
  const set: Partial<SitesTable> = {};
  if (patch.domain !== undefined) set.domain = normalizeDomain(patch.domain);
  if (patch.timezone !== undefined) set.timezone = normalizeTimezone(patch.timezone);
  if (patch.currency !== undefined) set.currency = normalizeCurrency(patch.currency);
  if (patch.cookieless !== undefined) set.cookieless = patch.cookieless ? 1 : 0;
  if (patch.cityRecording !== undefined) set.city_recording = patch.cityRecording ? 1 : 0;
  if (patch.icon !== undefined) set.icon = patch.icon;
  if (patch.colour !== undefined) set.colour = patch.colour;
  if (patch.consentBar !== undefined) set.consent_bar = patch.consentBar ? 1 : 0;
  if (patch.retentionDays !== undefined) set.retention_days = retentionOf(patch.retentionDays);
  if (patch.umamiWebsiteId !== undefined) set.umami_website_id = umamiIdOf(patch.umamiWebsiteId);
  // A colour is checked against the stored other one. Two owners changing one colour each at the
  // same moment could store a pair neither checked: too rare to hold a write lock across the read.
  const current = getSite(ctl, id);
  if (!current) throw new AppError('not_found', 'no such site');
  if (patch.shields !== undefined)
    set.shields = storedShields(normalizeShields(patch.shields, current.shields));
  if (patch.modules !== undefined) {
    const modules = { ...current.modules, ...patch.modules };
    set.modules_off = JSON.stringify(MODULES.filter((m) => !modules[m]));
  }
  Object.assign(
    set,
    consentColumns(patch, { background: current.consentBackground, foreground: current.consentForeground }),
  );
  if (Object.keys(set).length > 0) {
    try {
      const r = await ctl.db.updateTable('sites').set(set).where('id', '=', id).executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) throw new AppError('not_found', 'no such site');
    } catch (e) {
      if ((e as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
        if (String((e as Error).message).includes('umami_website_id')) {
          throw new AppError('conflict', 'another site has this Umami website id', {
            field: 'umami_website_id',
          });
        }
        throw new AppError('conflict', `a site for ${set.domain} exists already`, { field: 'domain' });
      }
      throw e;
    }
  }
  const site = getSite(ctl, id);
  if (!site) throw new AppError('not_found', 'no such site');
  return site;
}

/** A new proxy key; the old one stops working at once. */
export async function rotateProxyKey(ctl: ControlDb, id: string): Promise<Site> {
  const r = await ctl.db
    .updateTable('sites')
    .set({ proxy_key: randomToken(24) })
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) === 0) throw new AppError('not_found', 'no such site');
  return getSite(ctl, id)!;
}

/** Removes a site's analytics; supplied by the query service (the analytics engine). */
export type OnSiteDeleted = (siteId: string) => Promise<void> | void;

/**
 * Deletes a site and its analytics. The row goes first (ingest stops accepting its events at
 * once) together with a note in `site_deletions`; the note is removed only after `onSiteDeleted`
 * succeeds, and `finishSiteDeletions` retries what is left at the next start.
 */
export async function deleteSite(ctl: ControlDb, id: string, onSiteDeleted: OnSiteDeleted): Promise<void> {
  await ctl.db.transaction().execute(async (trx) => {
    const r = await trx.deleteFrom('sites').where('id', '=', id).executeTakeFirst();
    if (Number(r.numDeletedRows) === 0) throw new AppError('not_found', 'no such site');
    await trx
      .insertInto('site_deletions')
      .values({ site_id: id, requested_at: ctl.now() })
      .onConflict((oc) => oc.doNothing())
      .execute();
  });
  await onSiteDeleted(id);
  await ctl.db.deleteFrom('site_deletions').where('site_id', '=', id).execute();
}

/** Retries removing the analytics of sites whose deletion did not finish; returns the ids done. */
export async function finishSiteDeletions(ctl: ControlDb, onSiteDeleted: OnSiteDeleted): Promise<string[]> {
  const rows = await ctl.db.selectFrom('site_deletions').select('site_id').execute();
  for (const { site_id } of rows) {
    await onSiteDeleted(site_id);
    await ctl.db.deleteFrom('site_deletions').where('site_id', '=', site_id).execute();
  }
  return rows.map((r) => r.site_id);
}

/** FOOTFALL_SITES: creates a site for each domain that has none; returns the ones created. */
export async function ensureSites(ctl: ControlDb, domains: readonly string[]): Promise<Site[]> {
  // a domain stored with `www.` before it was dropped is the same site
  const have = new Set(listSites(ctl).map((s) => bareHost(s.domain)));
  const created: Site[] = [];
  for (const domain of domains) {
    if (have.has(bareHost(domain))) continue;
    try {
      created.push(await createSite(ctl, { domain }));
    } catch (e) {
      // the other process created it in the meantime
      if (!(e instanceof AppError && e.code === 'conflict')) throw e;
    }
  }
  return created;
}
