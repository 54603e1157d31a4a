import { signal } from '@preact/signals';

/**
 * The release list the operator named (FOOTFALL_UPDATE_CHECK, given by the session; off unless
 * set) answers `{ "latest": { "version": "0.2.0", "url": "https://…" } }`. The query service's page
 * policy (apps/query/src/dashboard.ts, pagePolicy) allows its origin and no other.
 */
const KEY = 'footfall.update-check';
const DAY_MS = 86_400_000;

export interface Release {
  version: string;
  url: string;
}

/** A newer release than the running one, once the check found one. */
export const newerRelease = signal<Release | undefined>(undefined);

/** -1, 0 or 1 as version `a` is older than, the same as, or newer than `b` (x.y.z). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((p) => Number.parseInt(p, 10) || 0);
  const pb = b.split(/[.-]/).map((p) => Number.parseInt(p, 10) || 0);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

function valid(value: unknown): value is Release {
  const r = value as Release | null;
  return (
    typeof r?.version === 'string' &&
    /^\d+\.\d+\.\d+/.test(r.version) &&
    typeof r.url === 'string' &&
    r.url.startsWith('https://')
  );
}

/**
 * Looks for a newer release, from the browser, at most once a day (the last answer is kept in
 * this browser). The request carries nothing about the instance: no cookie, no referrer, no
 * query. Offline, blocked or malformed, it fails quietly and tries again the next day.
 */
export async function checkForUpdate(running: string, releasesUrl: string, now = Date.now()): Promise<void> {
  let last: { at: number; url?: string; latest: Release | null } | null = null;
  try {
    last = JSON.parse(localStorage.getItem(KEY) ?? 'null');
  } catch {}
  let latest = last?.latest ?? null;
  if (
    !last ||
    typeof last.at !== 'number' ||
    now - last.at >= DAY_MS ||
    last.at > now ||
    last.url !== releasesUrl
  ) {
    latest = null;
    try {
      const res = await fetch(releasesUrl, {
        credentials: 'omit',
        referrerPolicy: 'no-referrer',
        cache: 'no-store',
        signal: AbortSignal.timeout(10_000),
      });
      const body = res.ok ? await res.json() : null;
      if (valid(body?.latest)) latest = { version: body.latest.version, url: body.latest.url };
    } catch {}
    localStorage.setItem(KEY, JSON.stringify({ at: now, url: releasesUrl, latest }));
  }
  newerRelease.value =
    latest && valid(latest) && compareVersions(latest.version, running) > 0 ? latest : undefined;
}
