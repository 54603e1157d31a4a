// The dashboard's first load, as a person gets it: the real `footfall start` on the demo data
// (1M events by default), Debian's Chromium opening a site's report with a signed-in session, and
// the browser's own resource timings. Measured per run: the API requests of the first view and when
// the last one answered after the navigation started; then the panels below the fold, loaded when
// scrolled to, counted apart. Each run asks a different 30-day period, so no report is cached;
// five more runs repeat a period each (a warm cache). Writes bench/results/dashboard.md.
// Run: pnpm bench:dashboard [--events 1000000] [--runs 10] [--reuse dir] [--keep]
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type Browser, chromium, type Page } from 'playwright-core';
import { FIRST_VIEW_JS_BUDGET, firstViewSizes } from '../apps/dashboard/scripts/sizes.ts';
import { writeDemoData } from './demo-data.ts';
import { type Footfall, startFootfall, waitTailed } from './footfall-process.ts';
import { machineLine } from './machine.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const TARGET_MS = 500;
/** issue 41: switching period or adding a filter, to the last answer */
const TARGET_SWITCH_MS = 300;
const TARGET_REQUESTS = 8;
const OWNER = { email: 'bench@example.com', password: 'bench password 0123' };
const DAY = 86_400_000;
const BROWSER_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** The owner's session cookie: set up with the printed link's token, or signed in on a reused directory. */
async function ownerCookie(ff: Footfall): Promise<{ name: string; value: string }> {
  const token = /\/setup\?token=([\w-]+)/.exec(ff.output())?.[1];
  if (token) {
    const res = await fetch(`${ff.url}/api/v1/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, ...OWNER }),
    });
    if (res.status !== 201) throw new Error(`setup answered ${res.status}`);
  }
  const res = await fetch(`${ff.url}/api/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(OWNER),
  });
  if (res.status !== 200) throw new Error(`sign-in answered ${res.status}`);
  const [pair] = res.headers.getSetCookie()[0]!.split(';');
  const [name, value] = pair!.split('=') as [string, string];
  return { name, value };
}

interface Load {
  path: string;
  /** API requests of the first view, and when the last answered (ms after the navigation began) */
  requests: number;
  lastAnswerMs: number;
  /** the same without images (a milestone's card): when the first view's data is all there */
  lastDataMs: number;
  /** every request of the first view: the page, its scripts and styles, the API */
  allRequests: number;
  api: string[];
  below: { requests: number; lastAnswerMs: number; api: string[] };
}

type Timing = { name: string; responseEnd: number; startTime: number };
const apiEntries = (page: Page) =>
  page.evaluate(() =>
    (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((e) => ({
      name: e.name,
      responseEnd: e.responseEnd,
      startTime: e.startTime,
    })),
  );
const isApi = (e: Timing) => new URL(e.name).pathname.startsWith('/api/');
const short = (e: Timing) => new URL(e.name).pathname.replace(/\/sites\/[a-z2-9]{10}/, '/sites/…');

/** Opens `path` in a fresh browser context (nothing cached) and times its first view. */
async function firstLoad(
  browser: Browser,
  url: string,
  cookie: { name: string; value: string },
  path: string,
): Promise<Load> {
  const page = await shownPage(browser, url, cookie, path);
  const context = page.context();
  const first = await apiEntries(page);
  const api = first.filter(isApi);
  if (process.env.BENCH_DEBUG)
    console.log(
      first.map((e) => `${short(e)} ${Math.round(e.startTime)}→${Math.round(e.responseEnd)}`).join('\n'),
    );
  // the panels below the fold come as a chunk of their own and make the page longer when they do:
  // scroll to the end until the last of them has loaded
  for (const started = Date.now(); Date.now() - started < 60_000; await page.waitForTimeout(250)) {
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    if ((await page.locator('.retention-grid, .retention .empty').count()) > 0) break;
  }
  await page.locator('.retention-grid, .retention .empty').first().waitFor({ timeout: 60_000 });
  await page.locator('.heatmap-grid').waitFor();
  await page.waitForTimeout(500);
  const later = (await apiEntries(page)).slice(first.length).filter(isApi);
  await context.close();
  return {
    path,
    requests: api.length,
    lastAnswerMs: Math.max(...api.map((e) => e.responseEnd)),
    lastDataMs: Math.max(
      ...api.filter((e) => !new URL(e.name).pathname.endsWith('/card')).map((e) => e.responseEnd),
    ),
    allRequests: first.length + 1,
    api: api.map(short),
    below: {
      requests: later.length,
      lastAnswerMs: later.length ? Math.max(...later.map((e) => e.responseEnd - e.startTime)) : 0,
      api: later.map(short),
    },
  };
}

/**
 * On a first view already shown, does what a person does next (`act`: a period's key, a click on a
 * row) and times it as they wait for it: from the action to the last API answer it caused.
 */
async function afterAction(
  page: Page,
  act: () => Promise<void>,
  urlChange: RegExp | ((url: URL) => boolean),
): Promise<{ ms: number; api: string[] }> {
  const before = (await apiEntries(page)).length;
  const t0 = await page.evaluate(() => performance.now());
  await act();
  await page.waitForURL(urlChange);
  await page.waitForTimeout(1500); // everything the new view asks for
  const caused = (await apiEntries(page)).slice(before).filter(isApi);
  if (caused.length === 0) throw new Error('the action asked for nothing');
  return { ms: Math.max(...caused.map((e) => e.responseEnd)) - t0, api: caused.map(short) };
}

/** A fresh page on `path`, its first view shown. */
async function shownPage(
  browser: Browser,
  url: string,
  cookie: { name: string; value: string },
  path: string,
): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addCookies([{ ...cookie, url }]);
  const page = await context.newPage();
  await page.goto(url + path);
  await page.locator('.top-stats').waitFor({ timeout: 60_000 });
  await page.locator('#panel-sources').waitFor();
  await page.waitForTimeout(1500); // anything else the first view asks for
  return page;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number) => Math.round(n).toLocaleString('en');

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '1000000' },
      runs: { type: 'string', default: '10' },
      reuse: { type: 'string' },
      keep: { type: 'boolean', default: false },
      out: { type: 'string', default: join(root, 'bench/results/dashboard.md') },
    },
  });
  const events = Number(values.events);
  const runs = Number(values.runs);
  const dataDir = values.reuse ?? join(mkdtempSync(join(tmpdir(), 'ff-bench-dashboard-')), 'data');
  const marker = join(dataDir, 'bench-demo.json');
  if (!existsSync(marker)) {
    console.log(`writing ${fmt(events)} demo events into ${dataDir}`);
    const demo = await writeDemoData({ dataDir, events });
    writeFileSync(marker, JSON.stringify(demo));
  }
  const demo = JSON.parse(readFileSync(marker, 'utf8')) as {
    siteId: string;
    domain: string;
    events: number;
    pageviews: number;
  };
  const ff = await startFootfall(dataDir);
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
  try {
    const tailSeconds = await waitTailed(ff.url).catch((error: unknown) => {
      // what footfall said before it stopped answering
      console.error(ff.output().slice(-4000));
      throw error;
    });
    console.log(`tailed in ${tailSeconds.toFixed(1)} s`);
    const cookie = await ownerCookie(ff);
    const site = `/sites/${demo.siteId}`;
    const today = Date.now();
    const loads: Load[] = [];
    for (let i = 0; i < runs; i++) {
      // a different 30-day window each run, ending 1..runs days ago: never in the report cache
      const to = new Date(today - (i + 1) * DAY).toISOString().slice(0, 10);
      const from = new Date(today - (i + 30) * DAY).toISOString().slice(0, 10);
      const load = await firstLoad(browser, ff.url, cookie, `${site}?period=custom&from=${from}&to=${to}`);
      console.log(`run ${i + 1}: ${load.requests} API requests, last answer ${fmt(load.lastAnswerMs)} ms`);
      loads.push(load);
    }
    // the periods of the first five runs again, each now in the report cache
    const warm: number[] = [];
    for (const load of loads.slice(0, 5))
      warm.push((await firstLoad(browser, ff.url, cookie, load.path)).lastAnswerMs);
    console.log(`cached: ${warm.map(fmt).join(', ')} ms`);
    // What comes after the first view, each report not asked before (so not cached): a period
    // switched by its key on a custom range's page, and a filter added by clicking a channel row
    // on another custom range's page.
    const switches: { ms: number; api: string[] }[] = [];
    for (const key of ['w', 'f', 'n', 'm', 'p', 'l']) {
      const page = await shownPage(browser, ff.url, cookie, loads[switches.length % runs]!.path);
      switches.push(
        await afterAction(
          page,
          () => page.keyboard.press(key),
          (u: URL) => !u.searchParams.has('from'),
        ),
      );
      console.log(`period key ${key}: last answer ${fmt(switches.at(-1)!.ms)} ms`);
      await page.context().close();
    }
    const filters: { ms: number; api: string[] }[] = [];
    for (let i = 0; i < Math.min(runs, 6); i++) {
      const to = new Date(today - (i + 40) * DAY).toISOString().slice(0, 10);
      const from = new Date(today - (i + 69) * DAY).toISOString().slice(0, 10);
      const page = await shownPage(browser, ff.url, cookie, `${site}?period=custom&from=${from}&to=${to}`);
      const row = page.locator('#panel-sources').locator('..').locator('..').getByRole('link').first();
      filters.push(await afterAction(page, () => row.click(), /[?&]f=/));
      console.log(`filter ${i + 1}: last answer ${fmt(filters.at(-1)!.ms)} ms`);
      await page.context().close();
    }
    const defaultView = await firstLoad(browser, ff.url, cookie, site);
    // The default view of a site that is receiving visits: an event of today before each run makes
    // the cached report stale, as a live site's traffic does; the page names the report in its
    // Link header (a named period), so it is fetched with the page.
    const live: Load[] = [];
    for (let i = 0; i < runs; i++) {
      const res = await fetch(`${ff.url}/api/e`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': BROWSER_UA },
        body: JSON.stringify({
          s: demo.siteId,
          k: 'pv',
          u: `https://${demo.domain}/bench-${i}`,
          v: `bench-live-${i}`,
        }),
      });
      if (res.status !== 202) throw new Error(`the event was answered ${res.status}`);
      await waitTailed(ff.url);
      const load = await firstLoad(browser, ff.url, cookie, site);
      console.log(
        `live run ${i + 1}: last answer ${fmt(load.lastAnswerMs)} ms, data ${fmt(load.lastDataMs)} ms`,
      );
      live.push(load);
    }
    const liveP50 = median(live.map((l) => l.lastAnswerMs));
    const liveMax = Math.max(...live.map((l) => l.lastAnswerMs));
    const liveDataP50 = median(live.map((l) => l.lastDataMs));
    const liveDataMax = Math.max(...live.map((l) => l.lastDataMs));
    const sizes = firstViewSizes(join(root, 'packages/cli/dist/dashboard'));
    const p50 = median(loads.map((l) => l.lastAnswerMs));
    const max = Math.max(...loads.map((l) => l.lastAnswerMs));
    const requests = Math.max(...loads.map((l) => l.requests));
    const lines = [
      `## Dashboard first load${demo.events >= 2_000_000 ? `, ${(demo.events / 1e6).toFixed(0)} M events` : ''}`,
      '',
      `\`pnpm bench:dashboard\` (bench/dashboard.ts): \`footfall start\` on ${fmt(demo.events)} demo events`,
      `(${fmt(demo.pageviews)} pageviews, 400 days), Chromium opening a site's report with a signed-in session in a fresh`,
      "context (nothing cached), timed by the browser's resource timings: from the navigation's start to the",
      'last API answer of the first view. Each "uncached" run asks a different custom 30-day range (the',
      "script asks for its report once it knows the site's zone), so no report comes from the cache; the",
      'live-site runs open the default view (a named period, whose report comes with the page) after an',
      `event that makes the cached one stale. Load average before: ${loadavg()
        .map((x) => x.toFixed(2))
        .join(', ')}.`,
      '',
      '| Measure | Result | Target |',
      '| --- | --- | --- |',
      `| API requests of the first view | ${requests} (${loads[0]!.api.join(', ')}) | at most ${TARGET_REQUESTS} |`,
      `| Last API answer, uncached, ${runs} runs | p50 ${fmt(p50)} ms, max ${fmt(max)} ms | at most ${TARGET_MS} ms |`,
      `| Last API answer, the same period again (cached report), ${warm.length} runs | p50 ${fmt(median(warm))} ms, max ${fmt(Math.max(...warm))} ms | at most 150 ms |`,
      `| Last API answer, the default view (last 30 days) | ${fmt(defaultView.lastAnswerMs)} ms | |`,
      `| A period switched by its key (7 and 28 days, 91 days, this and last month, 12 months; each its first ask), from the key to the last answer | p50 ${fmt(median(switches.map((x) => x.ms)))} ms, max ${fmt(Math.max(...switches.map((x) => x.ms)))} ms (${switches[0]!.api.join(', ')}) | at most ${TARGET_SWITCH_MS} ms |`,
      `| A filter added by clicking a channel (another 30-day range each run), from the click to the last answer | p50 ${fmt(median(filters.map((x) => x.ms)))} ms, max ${fmt(Math.max(...filters.map((x) => x.ms)))} ms (${filters[0]!.api.join(', ')}) | at most ${TARGET_SWITCH_MS} ms |`,
      `| Last API answer, the default view of a live site (an event before each run: uncached; the report fetched with the page), ${runs} runs | p50 ${fmt(liveP50)} ms, max ${fmt(liveMax)} ms | at most ${TARGET_MS} ms |`,
      `| The same without images (a milestone's card): the first view's data all there | p50 ${fmt(liveDataP50)} ms, max ${fmt(liveDataMax)} ms | |`,
      `| All requests of the first view (page, scripts, styles, API) | ${defaultView.allRequests} | |`,
      `| Below the fold, when scrolled to | ${defaultView.below.requests} requests (${defaultView.below.api.join(', ')}), slowest ${fmt(defaultView.below.lastAnswerMs)} ms | counted apart |`,
      `| JavaScript of the first view | ${fmt(sizes.jsTotal.gzip)} bytes gzipped (${fmt(sizes.jsTotal.brotli)} brotli, ${fmt(sizes.jsTotal.raw)} raw) | at most ${fmt(FIRST_VIEW_JS_BUDGET)} gzipped |`,
      `| CSS of the first view | ${fmt(sizes.cssTotal.gzip)} bytes gzipped | |`,
      `| All the dashboard's JavaScript, every screen | ${fmt(sizes.allJsTotal.gzip)} bytes gzipped | |`,
      '',
      `For comparison, issue 17 measured Umami 3.1 on this machine with 1M pageviews: 14 requests, 5.9 s.`,
      `Targets: ${requests <= TARGET_REQUESTS ? 'requests met' : 'requests MISSED'}, ${max <= TARGET_MS ? 'time met on every run' : p50 <= TARGET_MS ? 'time met at p50, not on every run' : 'time MISSED'}, ${sizes.jsTotal.gzip <= FIRST_VIEW_JS_BUDGET ? 'size met' : 'size MISSED'}.`,
    ];
    writeFileSync(values.out, `${lines.join('\n')}\n`);
    console.log(`${values.out} written on ${machineLine()}`);
  } finally {
    await browser.close();
    await ff.stop();
    if (!values.keep && !values.reuse) rmSync(join(dataDir, '..'), { recursive: true, force: true });
  }
}

await main();
