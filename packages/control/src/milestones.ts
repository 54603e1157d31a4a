import { AppError } from '@footfall/http';
import { SealError } from './crypto.ts';
import type { ControlDb } from './open.ts';
import type { ControlSchema } from './schema.ts';
import { randomId, randomToken, sha256Hex } from './tokens.ts';

/**
 * What a site can reach (docs/milestones.md): round numbers of lifetime visitors, pageviews,
 * countries and revenue, a record day, the first goal reached and the first sale.
 */
export const MILESTONE_KINDS = [
  'visitors',
  'pageviews',
  'countries',
  'revenue',
  'record_day',
  'first_goal',
  'first_sale',
] as const;
export type MilestoneKind = (typeof MILESTONE_KINDS)[number];

/** The kinds whose steps are round numbers, and the first of them. */
const ROUND_FROM: Partial<Record<MilestoneKind, number>> = {
  visitors: 100,
  pageviews: 100,
  revenue: 100,
};
/** Countries reached: a short list of its own (there are not a million countries). */
const COUNTRY_STEPS = [5, 10, 25, 50, 100, 150, 200];

/**
 * The round-number step a count has reached, or null below the first: 1, 2.5 and 5 times a power of
 * ten from the kind's first step (100, 250, 500, 1,000, 2,500 ...); countries 5, 10, 25, 50, 100,
 * 150, 200. Revenue counts in whole units of the site's currency.
 */
export function stepReached(
  kind: 'visitors' | 'pageviews' | 'countries' | 'revenue',
  value: number,
): number | null {
  if (kind === 'countries') return COUNTRY_STEPS.filter((s) => s <= value).at(-1) ?? null;
  const first = ROUND_FROM[kind] ?? 100;
  if (value < first) return null;
  let best = first;
  for (let power = first; power <= value; power *= 10) {
    for (const factor of [1, 2.5, 5]) {
      const step = power * factor;
      if (step <= value) best = step;
    }
  }
  return best;
}

export interface Milestone {
  id: string;
  siteId: string;
  kind: MilestoneKind;
  step: string;
  value: number;
  /** the currency of money (revenue, first sale); the goal's name (first goal) */
  currency: string | null;
  goal: string | null;
  /** the finished day it was reached on, in the site's time zone (as far as the daily check can tell) */
  day: string;
  createdAt: number;
}

export interface MilestoneShare {
  /** null when it was sealed with another instance key */
  token: string | null;
  showAmount: boolean;
  createdAt: number;
}

type MilestoneRow = ControlSchema['milestones'];

function toMilestone(r: MilestoneRow): Milestone {
  let detail: { currency?: unknown; goal?: unknown } = {};
  try {
    detail = r.detail === null ? {} : JSON.parse(r.detail);
  } catch {
    detail = {};
  }
  return {
    id: r.id,
    siteId: r.site_id,
    kind: r.kind as MilestoneKind,
    step: r.step,
    value: r.value,
    currency: typeof detail.currency === 'string' ? detail.currency : null,
    goal: typeof detail.goal === 'string' ? detail.goal : null,
    day: r.day,
    createdAt: r.created_at,
  };
}

export interface MilestoneSettings {
  /** the kinds that are checked and shown */
  kinds: MilestoneKind[];
  /** the last finished day the check looked at; null before the first */
  checkedDay: string | null;
}

export function milestoneSettings(ctl: ControlDb, siteId: string): MilestoneSettings {
  const row = ctl.raw
    .prepare('SELECT kinds_off, checked_day FROM milestone_settings WHERE site_id = ?')
    .get(siteId) as { kinds_off: string; checked_day: string | null } | undefined;
  let off: unknown = [];
  try {
    off = JSON.parse(row?.kinds_off ?? '[]');
  } catch {
    off = [];
  }
  const list = Array.isArray(off) ? off : [];
  return { kinds: MILESTONE_KINDS.filter((k) => !list.includes(k)), checkedDay: row?.checked_day ?? null };
}

/** Which kinds are checked and shown; the others are neither (what was reached stays). */
export function setMilestoneKinds(ctl: ControlDb, siteId: string, kinds: readonly MilestoneKind[]): void {
  const off = JSON.stringify(MILESTONE_KINDS.filter((k) => !kinds.includes(k)));
  ctl.raw
    .prepare(
      `INSERT INTO milestone_settings (site_id, kinds_off) VALUES (?, ?)
       ON CONFLICT (site_id) DO UPDATE SET kinds_off = excluded.kinds_off`,
    )
    .run(siteId, off);
}

export function setMilestoneCheckedDay(ctl: ControlDb, siteId: string, day: string): void {
  ctl.raw
    .prepare(
      `INSERT INTO milestone_settings (site_id, checked_day) VALUES (?, ?)
       ON CONFLICT (site_id) DO UPDATE SET checked_day = excluded.checked_day`,
    )
    .run(siteId, day);
}

/** The highest round-number step recorded of a kind (0 before any). */
export function highestStep(ctl: ControlDb, siteId: string, kind: MilestoneKind): number {
  const rows = ctl.raw
    .prepare('SELECT step FROM milestones WHERE site_id = ? AND kind = ?')
    .all(siteId, kind) as { step: string }[];
  return rows.reduce((best, r) => Math.max(best, Number(r.step) || 0), 0);
}

export function hasMilestone(ctl: ControlDb, siteId: string, kind: MilestoneKind): boolean {
  return (
    ctl.raw.prepare('SELECT 1 FROM milestones WHERE site_id = ? AND kind = ? LIMIT 1').get(siteId, kind) !==
    undefined
  );
}

/** Stores a milestone; undefined when that kind and step was already reached. */
export function recordMilestone(
  ctl: ControlDb,
  m: {
    siteId: string;
    kind: MilestoneKind;
    step: string;
    value: number;
    day: string;
    currency?: string;
    goal?: string;
  },
): Milestone | undefined {
  const id = randomId();
  const detail =
    m.currency !== undefined || m.goal !== undefined
      ? JSON.stringify({ currency: m.currency, goal: m.goal })
      : null;
  const r = ctl.raw
    .prepare(
      `INSERT OR IGNORE INTO milestones (id, site_id, kind, step, value, detail, day, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(id, m.siteId, m.kind, m.step, Math.round(m.value), detail, m.day, ctl.now());
  if (r.changes === 0) return undefined;
  return getMilestoneById(ctl, id);
}

function getMilestoneById(ctl: ControlDb, id: string): Milestone | undefined {
  const row = ctl.raw.prepare('SELECT * FROM milestones WHERE id = ?').get(id) as MilestoneRow | undefined;
  return row === undefined ? undefined : toMilestone(row);
}

/** A site's milestones, newest first, each with whether this person closed it and its public link. */
export function listMilestones(
  ctl: ControlDb,
  siteId: string,
  personId: string | null,
): (Milestone & { seen: boolean; share: MilestoneShare | null })[] {
  const rows = ctl.raw
    .prepare(
      `SELECT m.*, (s.milestone_id IS NOT NULL) AS seen, sh.token AS share_token,
         sh.show_amount AS share_show_amount, sh.created_at AS share_created_at
       FROM milestones m
       LEFT JOIN milestone_seen s ON s.milestone_id = m.id AND s.person_id = ?
       LEFT JOIN milestone_shares sh ON sh.milestone_id = m.id
       WHERE m.site_id = ?
       ORDER BY m.day DESC, m.created_at DESC, m.rowid DESC`,
    )
    .all(personId, siteId) as (MilestoneRow & {
    seen: number;
    share_token: string | null;
    share_show_amount: number | null;
    share_created_at: number | null;
  })[];
  return rows.map((r) => ({
    ...toMilestone(r),
    seen: r.seen === 1,
    share:
      r.share_token === null
        ? null
        : {
            token: openToken(ctl, r.share_token),
            showAmount: r.share_show_amount === 1,
            createdAt: r.share_created_at ?? 0,
          },
  }));
}

export function getMilestone(ctl: ControlDb, siteId: string, kind: string, step: string): Milestone {
  const row = ctl.raw
    .prepare('SELECT * FROM milestones WHERE site_id = ? AND kind = ? AND step = ?')
    .get(siteId, kind, step) as MilestoneRow | undefined;
  if (row === undefined) throw new AppError('not_found', 'no such milestone');
  return toMilestone(row);
}

/** Records that a person closed a milestone's moment (again is fine). */
export function markMilestoneSeen(ctl: ControlDb, milestoneId: string, personId: string): void {
  ctl.raw
    .prepare('INSERT OR IGNORE INTO milestone_seen (milestone_id, person_id, seen_at) VALUES (?, ?, ?)')
    .run(milestoneId, personId, ctl.now());
}

function openToken(ctl: ControlDb, sealed: string): string | null {
  try {
    return ctl.cipher.openText(sealed, 'milestone-token');
  } catch (error) {
    if (error instanceof SealError) return null;
    throw error;
  }
}

/**
 * Makes a milestone public at `/m/<token>`, or changes its "show amount" option when it already is
 * (the link stays the same). `created` says which.
 */
export function shareMilestone(
  ctl: ControlDb,
  milestoneId: string,
  showAmount: boolean,
): MilestoneShare & { created: boolean } {
  const existing = ctl.raw
    .prepare('SELECT token, created_at FROM milestone_shares WHERE milestone_id = ?')
    .get(milestoneId) as { token: string; created_at: number } | undefined;
  if (existing !== undefined) {
    ctl.raw
      .prepare('UPDATE milestone_shares SET show_amount = ? WHERE milestone_id = ?')
      .run(showAmount ? 1 : 0, milestoneId);
    return {
      token: openToken(ctl, existing.token),
      showAmount,
      createdAt: existing.created_at,
      created: false,
    };
  }
  const token = randomToken(18);
  const now = ctl.now();
  ctl.raw
    .prepare(
      `INSERT INTO milestone_shares (milestone_id, token_hash, token, show_amount, created_at)
       VALUES (?, ?, ?, ?, ?)`,
    )
    .run(
      milestoneId,
      sha256Hex(token),
      ctl.cipher.sealText(token, 'milestone-token'),
      showAmount ? 1 : 0,
      now,
    );
  return { token, showAmount, createdAt: now, created: true };
}

/** Revokes a milestone's public link: `/m/<token>` answers 404 from now on. */
export function unshareMilestone(ctl: ControlDb, milestoneId: string): void {
  const r = ctl.raw.prepare('DELETE FROM milestone_shares WHERE milestone_id = ?').run(milestoneId);
  if (r.changes === 0) throw new AppError('not_found', 'this milestone has no public link');
}

/** The milestone a public token shows, with its link's option; undefined for a revoked or unknown one. */
export function milestoneByToken(
  ctl: ControlDb,
  token: string,
): (Milestone & { showAmount: boolean }) | undefined {
  if (!/^[A-Za-z0-9_-]{16,64}$/.test(token)) return undefined;
  const row = ctl.raw
    .prepare(
      `SELECT m.*, sh.show_amount AS show_amount FROM milestone_shares sh
       JOIN milestones m ON m.id = sh.milestone_id WHERE sh.token_hash = ?`,
    )
    .get(sha256Hex(token)) as (MilestoneRow & { show_amount: number }) | undefined;
  return row === undefined ? undefined : { ...toMilestone(row), showAmount: row.show_amount === 1 };
}
