import { createSite, faviconOf, installCheckOf } from '@footfall/control';
import { describe, expect, it } from 'vitest';
import { ev } from '../engine/test-fixtures.ts';
import {
  alerts,
  clock,
  control,
  DAY,
  iso,
  kinds,
  load,
  maxInFlight,
  received,
  scripts,
  site,
  t,
  useAlertsHarness,
  visits,
  webhook,
} from './test-support.ts';

/** The daily install check of quiet sites and the weekly favicon, against a local homepage. */
useAlertsHarness();

describe('install check', () => {
  it('marks a site quiet for two days stopped after reading its homepage, and clears it with the next visit', async () => {
    await webhook(['tracking_stopped']);
    await visits(clock.now() - 3 * DAY, 3);
    await alerts.tick();
    expect(kinds()).toEqual(['tracking_stopped:started']);
    expect(received[0]!.message.data).toEqual({ tracker: 'missing', detail: null });
    expect(received[0]!.message.text).toContain(`/js/${site.id}.js) is not on its homepage`);
    const check = installCheckOf(control.ctl, site.id)!;
    expect(check.stoppedAt).toBe(clock.now());
    expect(check.outcome.tracker).toBe('missing');
    // the next pass does not check again (daily), and says nothing new
    clock.advance(60_000);
    await alerts.tick();
    expect(kinds()).toEqual(['tracking_stopped:started']);
    await visits(clock.now(), 1, 'back-');
    clock.advance(60_000);
    await alerts.tick();
    expect(kinds()).toEqual(['tracking_stopped:started', 'tracking_stopped:cleared']);
    expect(installCheckOf(control.ctl, site.id)!.stoppedAt).toBeNull();
  });

  it('judges no site quiet while the tailer has a backlog, and clears a stop once older visits are loaded', async () => {
    await webhook(['tracking_stopped']);
    await visits(clock.now() - 3 * DAY, 3);
    // a restart after downtime: the WAL holds newer visits than the engine yet
    t.tailerLag = 5_000;
    await alerts.tick();
    expect(kinds()).toEqual([]);
    expect(installCheckOf(control.ctl, site.id)).toBeUndefined();
    t.tailerLag = 0;
    await alerts.tick();
    expect(kinds()).toEqual(['tracking_stopped:started']);
    // visits that came before the check, loaded only now: the site is not quiet after all
    await visits(clock.now() - 3_600_000, 1, 'late-');
    clock.advance(60_000);
    await alerts.tick();
    expect(kinds()).toEqual(['tracking_stopped:started', 'tracking_stopped:cleared']);
    expect(installCheckOf(control.ctl, site.id)!.stoppedAt).toBeNull();
  });

  it('checks at most 50 sites a day, 4 at once, reading at most 20 scripts of a page', async () => {
    const quiet = clock.now() - 3 * DAY;
    const sites = [site];
    for (let i = 0; i < 54; i++) sites.push(await createSite(control.ctl, { domain: `s${i}.example.com` }));
    await load(sites.map((s, i) => ev(iso(quiet + i * 1000), { site: s.id, visitor: `quiet-${i}` })));
    t.homepageHtml = Array.from({ length: 25 }, (_, i) => `<script src="/lib${i}.js"></script>`).join('');
    await alerts.tick();
    const pages = t.checkRequests.filter((url) => url === '/');
    expect(pages).toHaveLength(50);
    expect(maxInFlight).toBeLessThanOrEqual(4);
    expect(maxInFlight).toBeGreaterThan(1);
    // no script carries the site id: each page's first 20 are read, the other 5 never
    expect(t.checkRequests.filter((url) => url.startsWith('/lib'))).toHaveLength(50 * 20);
    expect(t.checkRequests.some((url) => /^\/lib2[0-4]\.js$/.test(url))).toBe(false);
    // the day's 50 are spent: later passes that day check nothing more
    t.checkRequests = [];
    clock.advance(3_600_000);
    await alerts.tick();
    expect(t.checkRequests).toEqual([]);
  }, 60_000);

  it('finds the tracker in the page or inside one of its scripts', async () => {
    await webhook(['tracking_stopped']);
    await visits(clock.now() - 3 * DAY, 1);
    t.homepageHtml = `<script defer src="/js/app.js"></script><script src='/assets/stats.js'></script>`;
    scripts['/assets/stats.js'] = `(function(){var s=${JSON.stringify(site.id)};fetch("/api/e")})()`;
    await alerts.tick();
    expect(received[0]!.message.data).toEqual({ tracker: 'found', detail: null });
    expect(received[0]!.message.text).toContain('The tracker is still on its homepage');
  });
});

describe('favicons', () => {
  const PNG = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    Buffer.alloc(40, 1),
  ]);

  it('keeps the icon the homepage links to, once a week, and never an SVG', async () => {
    t.homepageHtml =
      '<head><link rel="shortcut icon" href="/static/icon.png"><link rel=stylesheet href=/a.css></head>';
    scripts['/static/icon.png'] = PNG.toString('latin1');
    await alerts.tick();
    const stored = faviconOf(control.ctl, site.id)!;
    expect(stored.image?.contentType).toBe('image/png');
    expect(stored.image?.bytes.subarray(0, 8)).toEqual(PNG.subarray(0, 8));
    // an SVG (it can carry script) is not kept, even as /favicon.ico
    t.homepageHtml = '<link rel="icon" href="/icon.svg">';
    scripts['/icon.svg'] = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
    scripts['/favicon.ico'] = scripts['/icon.svg'];
    clock.advance(86_400_000);
    await alerts.tick();
    expect(faviconOf(control.ctl, site.id)!.fetchedAt).toBe(stored.fetchedAt); // not due for a week
    clock.advance(7 * 86_400_000);
    await alerts.tick();
    expect(faviconOf(control.ctl, site.id)!.image).toBeNull();
  });
});
