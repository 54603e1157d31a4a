import { SHIELD_KINDS, type ShieldKind, type Site } from '@footfall/control';
import type { Engine } from './engine/engine.ts';
import { todayIn } from './engine/report-params.ts';

const DAY_MS = 86_400_000;

type ByKind = Record<ShieldKind, number>;

const zero = (): ByKind => ({ ip: 0, country: 0, page: 0, hostname: 0 });

/**
 * How many events a site's shields kept out (the gateway counts each as a `shield_<kind>` drop,
 * beside the bots': control's shields.ts), today and over the last 30 days in the site's time zone.
 */
export async function shieldCounts(engine: Engine, site: Site, nowMs: number) {
  const today = todayIn(site.timezone, nowMs);
  const from = new Date(Date.parse(`${today}T00:00:00Z`) - 29 * DAY_MS).toISOString().slice(0, 10);
  const rows = await engine.botCounters({ site: site.id, from, to: today });
  const day = zero();
  const month = zero();
  for (const r of rows) {
    const kind = r.kind.startsWith('shield_') ? (r.kind.slice(7) as ShieldKind) : undefined;
    if (kind === undefined || !SHIELD_KINDS.includes(kind)) continue;
    month[kind] += r.hits;
    if (r.day === today) day[kind] += r.hits;
  }
  const total = (k: ByKind) => SHIELD_KINDS.reduce((n, kind) => n + k[kind], 0);
  return {
    today: { day: today, total: total(day), by_kind: day },
    last_30_days: { from, to: today, total: total(month), by_kind: month },
  };
}
