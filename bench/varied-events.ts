/**
 * Deterministic, realistic tracker payloads for load tests: a mix of pages, referrers, campaigns,
 * custom events and engagement, with fresh event ids.
 */
const PATHS = [
  '/',
  '/pricing',
  '/blog',
  '/blog/how-we-count-visits',
  '/docs',
  '/docs/install',
  '/signup',
  '/about',
  '/changelog',
  '/contact',
];
const REFS = [
  '',
  '',
  '',
  'https://www.google.com/',
  'https://duckduckgo.com/',
  'https://news.ycombinator.com/item?id=1',
  'https://chatgpt.com/',
  'https://t.co/abc',
  'https://www.bing.com/search?q=x',
  'https://github.com/x/y',
];
const UTM = [
  '',
  '',
  '',
  '',
  '?utm_source=newsletter&utm_medium=email&utm_campaign=nov',
  '?utm_source=google&utm_medium=cpc&gclid=abc',
  '?ref=producthunt',
];

/** A seeded pseudo-random generator (mulberry32), so every run sends the same traffic. */
export function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `count` event bodies for one site. Each body has a visitor of its own, so a load that cycles
 * through them sends each visitor one event per cycle and stays under the per-visitor rate limit.
 */
export function eventBodies(siteId: string, count: number, seed = 42): string[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const kind = r() < 0.8 ? 'pv' : r() < 0.5 ? 'ev' : 'en';
    const body: Record<string, unknown> = {
      s: siteId,
      k: kind,
      u: `https://example.com${pick(PATHS)}${pick(UTM)}`,
      r: pick(REFS),
      i: `b${seed}x${i}x${Math.floor(r() * 1e9).toString(36)}`,
      v: `v${i.toString(36)}visitor`,
      w: pick([390, 768, 1280, 1440, 1920]),
      h: pick([844, 1024, 800, 900, 1080]),
    };
    if (kind === 'ev')
      Object.assign(body, {
        n: pick(['Signup', 'Download', 'Outbound Link']),
        p: { plan: pick(['free', 'pro']) },
      });
    if (kind === 'en') Object.assign(body, { e: Math.floor(r() * 120_000), d: Math.floor(r() * 100) });
    out.push(JSON.stringify(body));
  }
  return out;
}
