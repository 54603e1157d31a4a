import { localDate } from '../support/zones.ts';
import type { SentEvent } from './model.ts';
import type { SiteSpec } from './script.ts';

const VITALS = ['lcp', 'inp', 'cls', 'fcp', 'ttfb'] as const;

/** The nearest-rank percentile: the ⌈q·n⌉-th smallest sample (docs/api.md, `report/vitals`). */
function nearestRank(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? null;
}

/**
 * Each metric's samples and p50, p75 and p90 from the `vt` events counted on the days from..to
 * (by the event's own time in the site's zone), as `report/vitals` answers them.
 */
export function expectedVitals(sent: readonly SentEvent[], from: string, to: string, timeZone: string) {
  const events = sent.filter((e) => {
    const day = localDate(e.lo, timeZone);
    return e.counted && e.kind === 'vt' && day >= from && day <= to;
  });
  const metrics = Object.fromEntries(
    VITALS.map((v) => {
      const values = events
        .map((e) => e.vitals?.[v])
        .filter((x): x is number => typeof x === 'number')
        .sort((a, b) => a - b);
      return [
        v,
        {
          samples: values.length,
          p50: nearestRank(values, 0.5),
          p75: nearestRank(values, 0.75),
          p90: nearestRank(values, 0.9),
        },
      ];
    }),
  );
  return { samples: events.length, metrics };
}

/** Robot requests a site's server reports: who, which page, what status. */
export const CRAWL_HITS = [
  {
    ua: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
    robot: 'GPTBot',
    kind: 'ai_training',
    path: '/docs',
    status: 200,
  },
  {
    ua: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
    robot: 'GPTBot',
    kind: 'ai_training',
    path: '/docs',
    status: 200,
  },
  {
    ua: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
    robot: 'GPTBot',
    kind: 'ai_training',
    path: '/pricing',
    status: 404,
  },
  {
    ua: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
    robot: 'ClaudeBot',
    kind: 'ai_training',
    path: '/blog',
    status: 200,
  },
  {
    ua: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
    robot: 'ChatGPT-User',
    kind: 'ai_assistant',
    path: '/pricing',
    status: 200,
  },
  {
    ua: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
    robot: 'ChatGPT-User',
    kind: 'ai_assistant',
    path: '/docs',
    status: 200,
  },
  {
    ua: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    robot: 'Googlebot',
    kind: 'search',
    path: '/docs',
    status: 200,
  },
  // a person's browser is no robot: discarded
  {
    ua: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
    robot: null,
    kind: null,
    path: '/docs',
    status: 200,
  },
] as const;

type RobotKind = 'ai_assistant' | 'ai_training' | 'search';

/** What `report/crawlers` must answer for CRAWL_HITS: totals, robots, pages and statuses. */
export function expectedCrawlers() {
  const robots = CRAWL_HITS.filter((h) => h.robot !== null);
  const by = <K extends string>(key: (h: (typeof robots)[number]) => K) => {
    const out = new Map<K, number>();
    for (const h of robots) out.set(key(h), (out.get(key(h)) ?? 0) + 1);
    return out;
  };
  const kinds = by((h) => h.kind as RobotKind);
  const pages = [...new Set(robots.map((h) => h.path))].map((path) => {
    const on = robots.filter((h) => h.path === path);
    const count = (k: RobotKind) => on.filter((h) => h.kind === k).length;
    return {
      path,
      hits: on.length,
      ai_assistant: count('ai_assistant'),
      ai_training: count('ai_training'),
      search: count('search'),
    };
  });
  return {
    totals: {
      hits: robots.length,
      by_kind: {
        ai_assistant: kinds.get('ai_assistant') ?? 0,
        ai_training: kinds.get('ai_training') ?? 0,
        search: kinds.get('search') ?? 0,
      },
    },
    robots: [...by((h) => `${h.robot}|${h.kind}`)].map(([k, hits]) => {
      const [robot, kind] = k.split('|');
      return { robot, kind, hits };
    }),
    pages,
    statuses: [...by((h) => String(Math.floor(h.status / 100)))].map(([status, hits]) => ({
      status: Number(status),
      hits,
    })),
  };
}

/** Sends CRAWL_HITS for a site as its server would, each answered 202; resolves with the local day of each. */
export async function sendCrawlHits(url: string, site: SiteSpec): Promise<string[]> {
  const days: string[] = [];
  for (const hit of CRAWL_HITS) {
    days.push(localDate(Date.now(), site.timezone));
    const res = await fetch(`${url}/api/crawl`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-footfall-proxy-key': site.proxyKey },
      body: JSON.stringify({
        s: site.id,
        u: `https://${site.domain}${hit.path}`,
        ua: hit.ua,
        st: hit.status,
      }),
    });
    if (res.status !== 202) throw new Error(`POST /api/crawl: ${res.status} ${await res.text()}`);
    days.push(localDate(Date.now(), site.timezone));
  }
  return days;
}
