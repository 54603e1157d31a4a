import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  pageHtml,
  type Suite,
  scriptUrl,
  startSuite,
  stopSuite,
  storedUnder,
  trackerReady,
  type Visit,
  type VisitOptions,
  visit,
  waitForStored,
} from './harness.ts';

// The site with the bar on (tests/tracker/stack.ts): its own script, served by the real gateway.
const MODE = 'consent';
let suite: Suite;
let current: Visit | undefined;

beforeAll(async () => {
  suite = await startSuite();
});
afterAll(() => stopSuite(suite));
afterEach(async () => {
  await current?.context.close();
  expect(current?.traffic.refused()).toEqual([]);
  current = undefined;
});

const BODY = '<main><h1>Shop</h1><p>Hello</p><a href="#top">a link</a></main>';

/** Opens `path` (a page of the consent site with the install snippet) in a new visitor's browser. */
async function open(path: string, options: VisitOptions & { early?: string } = {}): Promise<Visit> {
  suite.pages.set(path, pageHtml(scriptUrl(suite, MODE), { body: BODY, early: options.early }));
  current = await visit(suite, path, { ...options, mode: MODE });
  return current;
}

const bar = (page: Page) => page.getByRole('region', { name: 'Analytics consent' });
const button = (page: Page, name: 'Accept' | 'Decline') => bar(page).getByRole('button', { name });

/** Everything the tracker could keep for the page's origin: cookie names and localStorage entries. */
async function kept(page: Page) {
  const local = await page.evaluate(() => ({ ...localStorage }));
  return { cookies: (await page.context().cookies()).map((c) => c.name), local };
}

/**
 * Nothing of `path` was stored: a later pageview on the same site from another visitor (who
 * consents through the stub) is stored first, and the write-ahead log keeps arrival order.
 */
async function expectNothingStored(path: string) {
  suite.pages.set(
    `/control${path}`,
    pageHtml(scriptUrl(suite, MODE), { early: "footfall('consent', true)" }),
  );
  const control = await visit(suite, `/control${path}`, { mode: MODE });
  expect(await bar(control.page).count()).toBe(0); // the page chose: no bar
  await waitForStored(suite, `/control${path}`, (events) => events.length === 1, MODE);
  await control.context.close();
  expect(await storedUnder(suite, path, MODE)).toEqual([]);
}

describe('the consent bar', () => {
  it('counts nothing until Accept, then the current page, and does not ask again', async () => {
    const { page, traffic } = await open('/accept');
    await expect.poll(() => bar(page).isVisible()).toBe(true);
    await page.evaluate(() => {
      window.footfall('event', 'Before a choice');
      history.pushState({}, '', '/accept/next');
    });
    expect(await kept(page)).toEqual({ cookies: [], local: {} });
    expect(traffic.attempts()).toEqual([]);

    await button(page, 'Accept').click();
    expect(await bar(page).count()).toBe(0);
    const stored = await waitForStored(suite, '/accept', (events) => events.length === 1, MODE);
    expect(stored.map((e) => [e.kind, e.path])).toEqual([['pv', '/accept/next']]);
    expect(await kept(page)).toMatchObject({ cookies: ['footfall_vid'], local: { footfall_consent: '1' } });

    await page.goto(page.url().replace('/accept/next', '/accept/again'));
    await trackerReady(page);
    expect(await bar(page).count()).toBe(0);
    await waitForStored(suite, '/accept', (events) => events.length === 2, MODE);
  });

  it('sends nothing from Decline on, keeps only the choice, and does not ask again after a reload', async () => {
    const { page, traffic } = await open('/decline');
    await button(page, 'Decline').click();
    expect(await bar(page).count()).toBe(0);
    await page.evaluate(() => {
      window.footfall('event', 'After decline');
      history.pushState({}, '', '/decline/next');
    });
    await page.reload();
    await trackerReady(page);
    expect(await bar(page).count()).toBe(0);
    expect(await kept(page)).toEqual({ cookies: [], local: { footfall_consent: '0' } });
    await page.goto('about:blank'); // leaving flushes whatever might be queued
    expect(traffic.attempts()).toEqual([]);
    await expectNothingStored('/decline');
  });

  it('is reached and used with the keyboard alone, with a visible focus', async () => {
    const { page } = await open('/keyboard');
    await page.keyboard.press('Tab');
    const focused = () =>
      page.evaluate(() => {
        const inner = document.activeElement?.shadowRoot?.activeElement;
        return inner ? [inner.textContent, getComputedStyle(inner).outlineStyle] : null;
      });
    // first in the tab order: a keyboard reaches it before the page's own links
    expect(await focused()).toEqual(['Accept', 'solid']);
    await page.keyboard.press('Tab');
    expect(await focused()).toEqual(['Decline', 'solid']);
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    expect(await bar(page).count()).toBe(0);
    await waitForStored(suite, '/keyboard', (events) => events.length === 1, MODE);
  });

  it('has no serious or critical accessibility problem and fits a 360 px wide screen', async () => {
    const { page } = await open('/a11y');
    await page.setViewportSize({ width: 360, height: 640 });
    const axe = createRequire(import.meta.url)('axe-core') as { source: string };
    await page.addScriptTag({ content: axe.source });
    const { problems, contrastChecked } = await page.evaluate(async () => {
      type Result = { id: string; impact?: string | null; nodes: { target: unknown[] }[] };
      const { axe } = window as unknown as {
        axe: { run(): Promise<{ violations: Result[]; passes: Result[] }> };
      };
      document.documentElement.lang = 'en'; // the harness page's own markup is not under test
      const { violations, passes } = await axe.run();
      return {
        problems: violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => v.id),
        // the bar lives in a shadow root: its nodes' targets are paths through `footfall-consent`
        contrastChecked: passes
          .filter((p) => p.id === 'color-contrast')
          .flatMap((p) => p.nodes.map((n) => JSON.stringify(n.target))),
      };
    });
    expect(problems).toEqual([]);
    expect(contrastChecked.filter((t) => t.includes('footfall-consent')).length).toBeGreaterThanOrEqual(3);
    const box = await bar(page).boundingBox();
    expect(box).toMatchObject({ x: 0, width: 360 });
    expect(box!.y + box!.height).toBe(640); // at the bottom, all of it on screen
    for (const name of ['Accept', 'Decline'] as const) {
      const b = await button(page, name).boundingBox();
      expect(b!.x + b!.width).toBeLessThanOrEqual(360);
      expect(b!.height).toBeGreaterThanOrEqual(44);
    }
  });

  it('is not shown under Global Privacy Control, and nothing is counted', async () => {
    const { page, traffic } = await open('/gpc', {
      init: "Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { get: () => true })",
    });
    expect(await bar(page).count()).toBe(0);
    await page.evaluate(() => window.footfall('consent', true));
    expect(await kept(page)).toEqual({ cookies: [], local: {} });
    await page.goto('about:blank');
    expect(traffic.attempts()).toEqual([]);
    await expectNothingStored('/gpc');
  });
});
