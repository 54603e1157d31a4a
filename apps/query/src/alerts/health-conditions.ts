import { instanceKeyMatches } from '@footfall/control';
import { backupHealth } from '../backups.ts';
import type { QueryDeps } from '../deps.ts';
import { gatewayHealth } from '../ingest-status.ts';

/** The instance's health conditions that are alerted (spec, Emitted 3). */
export type HealthCondition = 'backup_failed' | 'offsite_failed' | 'wal_refusing' | 'key_mismatch';

export interface ConditionState {
  active: boolean;
  /** why, in words, while active */
  why: string;
}

const TITLES: Record<HealthCondition, [started: string, cleared: string]> = {
  backup_failed: ['Footfall: the last backup failed', 'Footfall: backups work again'],
  offsite_failed: [
    'Footfall: the off-site copy of the backup failed',
    'Footfall: off-site copies work again',
  ],
  wal_refusing: ['Footfall is refusing new events', 'Footfall accepts events again'],
  key_mismatch: [
    'Footfall: the instance key does not match the data',
    'Footfall: the instance key matches the data again',
  ],
};

/**
 * Each health condition as it is now: the last backup and off-site copy (backups/state.json), each
 * gateway's availability (its status socket), and whether the instance key opens the data.
 */
export async function healthConditions(deps: QueryDeps): Promise<[HealthCondition, ConditionState][]> {
  const backups = deps.backups ? backupHealth(deps.backups.state, deps.config.backupS3 !== undefined) : null;
  const refusing: string[] = [];
  for (const g of await gatewayHealth(deps.instance.paths.run)) {
    if (!g.reachable) continue;
    const availability = (g.availability ?? {}) as { state?: string; reason?: string };
    if (availability.state === 'refusing')
      refusing.push(`${String(g.stream)}: ${availability.reason ?? 'disk full'}`);
  }
  return [
    ['backup_failed', { active: backups?.failing === true, why: backups?.last_failure?.reason ?? '' }],
    [
      'offsite_failed',
      { active: backups?.offsite?.failing === true, why: backups?.offsite?.last_failure?.reason ?? '' },
    ],
    ['wal_refusing', { active: refusing.length > 0, why: refusing.join('; ') }],
    [
      'key_mismatch',
      {
        active: !instanceKeyMatches(deps.control),
        why: 'values sealed in the control database cannot be opened with this key (FOOTFALL_SECRET changed, or data/secret.key was replaced)',
      },
    ],
  ];
}

/** A condition's alert in words: started (with why) or cleared. */
export function healthWords(name: HealthCondition, c: ConditionState) {
  const [started, cleared] = TITLES[name];
  return {
    title: c.active ? started : cleared,
    text: c.active
      ? `${started.replace(/^Footfall: /, '')}${c.why ? `: ${c.why}` : ''}. Health in the dashboard shows the details.`
      : `${cleared.replace(/^Footfall: /, '')}.`,
    data: { condition: name, reason: c.active ? c.why || null : null },
    path: '/health',
  };
}

const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;

/** The words of "the disk is filling" (or "has room again"), from Health's disk numbers. */
export function diskWords(
  d: { runway_days: number | null; free_bytes: number; data_bytes: number },
  active: boolean,
  threshold: number,
) {
  return {
    title: active
      ? `Footfall: the disk is full in about ${Math.max(0, Math.round(d.runway_days ?? 0))} days`
      : 'Footfall: the disk has room again',
    text: active
      ? `At the rate of the last seven days, the data volume is full in about ${d.runway_days} days (${gib(d.free_bytes)} free, Footfall's data ${gib(d.data_bytes)}). Make room or move to a larger volume: when the disk is full, new events are refused.`
      : `At the rate of the last seven days the data volume lasts ${d.runway_days === null ? 'for a long time' : `about ${d.runway_days} days`} (${gib(d.free_bytes)} free).`,
    data: {
      runway_days: d.runway_days,
      free_bytes: d.free_bytes,
      data_bytes: d.data_bytes,
      threshold_days: threshold,
    },
    path: '/health',
  };
}
