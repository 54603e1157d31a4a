import { BOT_DROP_KINDS, type BotDropKind, ROBOT_KINDS, type RobotKind } from '@footfall/schema';
import type { Engine, Filter, Period } from './engine/index.ts';

/** The most robots and pages a crawler report lists. */
const ROBOT_LIMIT = 100;
const PAGE_LIMIT = 50;

const zeros = <K extends string>(keys: readonly K[]) =>
  Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;

/** The days from..to, inclusive (YYYY-MM-DD). */
function daysOf(period: Period): string[] {
  const out: string[] = [];
  for (
    let t = Date.parse(`${period.from}T00:00:00Z`);
    t <= Date.parse(`${period.to}T00:00:00Z`);
    t += 86_400_000
  ) {
    out.push(new Date(t).toISOString().slice(0, 10));
  }
  return out;
}

/**
 * The robots report of a period (spec, Crawl hit; docs/api.md): hits of AI assistants, training
 * crawlers and search bots as the site's servers reported them to `/api/crawl`, by class, robot,
 * page, status class and day; and the tracker requests dropped as robots at `/api/e`, by kind and
 * day. A `page` filter narrows the crawler counts to that page; other filters leave them alone
 * (they describe visits, which robots do not make).
 */
export async function crawlerReport(
  engine: Engine,
  q: { site: string; period: Period; filters: readonly Filter[] },
) {
  const { from, to } = q.period;
  const page = q.filters.find((f) => f.dim === 'page')?.value ?? undefined;
  const base = { site: q.site, from, to, ...(page === undefined ? {} : { path: page }) };
  const [byKind, byRobot, byPath, byStatus, byDay, bots] = await Promise.all([
    engine.crawlCounters({ ...base, groupBy: ['robotKind'] }),
    engine.crawlCounters({ ...base, groupBy: ['robot', 'robotKind'], limit: ROBOT_LIMIT }),
    engine.crawlCounters({ ...base, groupBy: ['path', 'robotKind'], limit: 20_000 }),
    engine.crawlCounters({ ...base, groupBy: ['status'] }),
    engine.crawlCounters({ ...base, groupBy: ['day', 'robotKind'], limit: 20_000 }),
    engine.botCounters({ site: q.site, from, to }),
  ]);
  const kinds = zeros(ROBOT_KINDS);
  for (const r of byKind) kinds[r.robotKind as RobotKind] += r.hits;

  const pages = new Map<string, Record<RobotKind, number>>();
  for (const r of byPath) {
    const row = pages.get(r.path!) ?? zeros(ROBOT_KINDS);
    row[r.robotKind as RobotKind] += r.hits;
    pages.set(r.path!, row);
  }
  const pageRows = [...pages]
    .map(([path, k]) => ({ path, hits: k.ai_assistant + k.ai_training + k.search, ...k }))
    .sort((a, b) => b.hits - a.hits || a.path.localeCompare(b.path))
    .slice(0, PAGE_LIMIT);

  const days = new Map(daysOf(q.period).map((d) => [d, zeros(ROBOT_KINDS)]));
  for (const r of byDay) {
    const row = days.get(r.day!);
    if (row) row[r.robotKind as RobotKind] += r.hits;
  }
  const botDays = new Map(daysOf(q.period).map((d) => [d, zeros(BOT_DROP_KINDS)]));
  const botKinds = zeros(BOT_DROP_KINDS);
  for (const r of bots) {
    if (!(BOT_DROP_KINDS as readonly string[]).includes(r.kind)) continue; // a shield's count (shieldCounts)
    botKinds[r.kind as BotDropKind] += r.hits;
    const row = botDays.get(r.day);
    if (row) row[r.kind as BotDropKind] += r.hits;
  }
  return {
    period: q.period,
    page: page ?? null,
    totals: { hits: kinds.ai_assistant + kinds.ai_training + kinds.search, by_kind: kinds },
    robots: byRobot.map((r) => ({ robot: r.robot!, kind: r.robotKind as RobotKind, hits: r.hits })),
    pages: pageRows,
    statuses: byStatus.map((r) => ({ status: r.status ?? 0, hits: r.hits })),
    chart: [...days].map(([day, k]) => ({ day, ...k })),
    bots_dropped: {
      total: botKinds.list + botKinds.empty_ua + botKinds.headless,
      by_kind: botKinds,
      chart: [...botDays].map(([day, k]) => ({ day, ...k })),
    },
  };
}
