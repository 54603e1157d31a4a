import type { BotDropKind } from '@footfall/schema';
import { isbot } from 'isbot';
import { getHeader, type HeaderBag } from './headers.ts';
import { Lru } from './lru.ts';

/**
 * Markers of automated browsers. They are checked before the isbot list (which also knows
 * some of them) so that the drop counter can tell headless automation from declared bots.
 *
 * Electron on its own is not here: real desktop apps (Slack, Notion, ...) embed pages in
 * Electron with ordinary users behind them. Electron-based automation is caught through its
 * drivers' own tokens (Nightmare, Spectron) and through the Chromium `HeadlessChrome` marks.
 */
const HEADLESS_UA =
  /headlesschrome|\bheadless\b|phantomjs|slimerjs|htmlunit|\bjsdom\b|puppeteer|playwright|selenium|webdriver|cypress|nightmare|spectron|zombie\.js/i;

/** Chromium's client hints name its headless build as a brand of its own. */
const HEADLESS_HINT = /headless/i;

/**
 * Decides whether a tracker request comes from a robot rather than a person.
 *
 * - `'empty_ua'`: no user agent, or only white space.
 * - `'headless'`: a headless or driven browser (HeadlessChrome, PhantomJS, Selenium, Puppeteer,
 *   Playwright, ...), from the user agent or from a `Sec-CH-UA` brand list that names
 *   HeadlessChrome. Browsers expose `navigator.webdriver` to scripts only, never in a header,
 *   so that hint cannot be seen here.
 * - `'list'`: a known bot, crawler or tool by the `isbot` package's list.
 * - `null`: a person's browser as far as can be told.
 *
 * @example
 * classifyBot('Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'); // 'list'
 */
export function classifyBot(userAgent: string | undefined, headers?: HeaderBag): BotDropKind | null {
  if (userAgent === undefined || userAgent.trim() === '') return 'empty_ua';
  const byAgent = agentVerdict(userAgent);
  if (byAgent === 'headless') return 'headless';
  const hints = getHeader(headers, 'sec-ch-ua');
  if (hints !== undefined && HEADLESS_HINT.test(hints)) return 'headless';
  return byAgent;
}

/**
 * What the user agent alone says: headless, listed or neither (null). The patterns are long and
 * user agents repeat a lot, so recent answers are kept.
 */
const agentCache = new Lru<string, 'headless' | 'list' | null>(5000);
function agentVerdict(userAgent: string): 'headless' | 'list' | null {
  let verdict = agentCache.get(userAgent);
  if (verdict === undefined) {
    verdict = HEADLESS_UA.test(userAgent) ? 'headless' : isbot(userAgent) ? 'list' : null;
    agentCache.set(userAgent, verdict);
  }
  return verdict;
}
