/**
 * The Footfall browser tracker (entry of the bundle). Reads its settings from config.ts, counts
 * pageviews (single-page apps included), custom events, engagement, outbound links, downloads and,
 * in the `vitals` variant, Web Vitals; honours consent, Do Not Track, Global Privacy Control and
 * the owner's "don't count me" mark,
 * and in the `consent` builds asks for consent with the site's own bar.
 * README.md beside the package describes the behaviour and what is stored where.
 */
import { onClick } from './clicks.ts';
import { COOKIELESS, HASH, OPT_IN, SITE } from './config.ts';
import { CHOICE_KEY, hideBar, showBar } from './consent-bar.ts';
import { measureScroll, resetEngagement, takeEngagement, tick } from './engage.ts';
import { dropQueue, enqueue, flush } from './queue.ts';
import { off, pageUrl, setOff } from './state.ts';
import { forget, randomId, stored, visitorId } from './store.ts';
import { takeVitals, watchVitals } from './vitals.ts';

declare const __FF_VITALS__: boolean;
declare const __FF_CONSENT__: boolean;

type Api = ((command: unknown, a?: unknown, b?: unknown) => void) & { q?: ArrayLike<unknown>[] };
const host = window as unknown as { footfall?: Api };
const nav = navigator as Navigator & { globalPrivacyControl?: boolean };
// "Don't count me": `?footfall_ignore=1` on a page of the site marks this browser (the site owner's)
// until `?footfall_ignore=0`; kept in localStorage, which the site's own pages share (a blocked
// storage keeps no mark, and the page counts).
// Do Not Track, Global Privacy Control and the owner's mark are final: no consent call overrides them.
const refused =
  nav.doNotTrack === '1' ||
  !!nav.globalPrivacyControl ||
  stored('footfall_ignore', /footfall_ignore=([01])/.exec(location.search)?.[1]) === '1';
const loadUrl = pageUrl();

let currentKey = ''; // pathname (and hash with data-hash) of the page the visitor is on
let currentUrl = loadUrl;
let counted = false; // whether the current page's pageview went out
let vitalsSent = false;

const send = (k: string, fields?: object): void => {
  if (!off) enqueue({ s: SITE, k, u: currentUrl, i: randomId(3), v: visitorId(), ...fields });
};

const pageview = (): void => {
  if (off) return;
  counted = true;
  // In-app pageviews repeat the page load's referrer; the server reads it from a visit's first one.
  send('pv', { r: document.referrer.slice(0, 2048), w: screen.width, h: screen.height });
};

const leave = (): void => {
  const engagement = takeEngagement();
  if (engagement && counted) send('en', engagement);
};

// A page is its path (plus hash with data-hash): query-only changes, such as a router tidying UTM
// parameters with replaceState, do not count as new pageviews.
const navigate = (): void => {
  const key = location.pathname + (HASH ? location.hash : '');
  if (key === currentKey) return;
  leave();
  currentKey = key;
  currentUrl = pageUrl();
  counted = false;
  resetEngagement();
  pageview();
};

const hide = (): void => {
  leave();
  if (__FF_VITALS__ && counted && !vitalsSent) {
    const m = takeVitals();
    const page = currentUrl;
    currentUrl = loadUrl; // vitals describe the page load, not a later in-app route
    if (m) send('vt', { m });
    currentUrl = page;
    vitalsSent = !!m;
  }
  flush(true);
};

/**
 * `footfall('event', name, props)`: a custom event. Property values must be strings (up to 512
 * characters), numbers or booleans, else the server refuses the event (400) and it is dropped.
 * `footfall('consent', false)`: nothing more is sent or stored, the queue and the cookie go;
 * `footfall('consent', true)`: counting resumes, with the current page's pageview if it was missed.
 * With the consent bar, a consent call is a choice like the bar's: remembered, and the bar goes.
 */
const api: Api = (command, a, b) => {
  if (command === 'event' && a) send('ev', { n: String(a).slice(0, 120), p: b });
  if (command === 'consent' && !refused) {
    setOff(!a);
    if (__FF_CONSENT__) {
      choice = a ? '1' : '0';
      stored(CHOICE_KEY, choice);
      hideBar();
    }
    if (off) {
      dropQueue();
      forget();
    } else {
      if (currentKey && !counted) pageview();
      flush();
    }
  }
};

const on = (target: EventTarget, type: string, listener: (event: Event) => void): void =>
  target.addEventListener(type, listener, true);

// The consent builds: `1` or `0` once the visitor (or the page) has chosen, on this page or before;
// only an acceptance (so far, on an earlier page) turns counting on.
let choice = __FF_CONSENT__ ? stored(CHOICE_KEY) : undefined;
setOff(refused || (__FF_CONSENT__ ? choice !== '1' : OPT_IN));
// Leftovers from an earlier cookie-mode setup or an earlier consent go when nothing may be kept.
if (refused || COOKIELESS || (__FF_CONSENT__ && choice !== '1')) forget();

for (const name of ['pushState', 'replaceState'] as const) {
  const original = history[name];
  history[name] = (...args: Parameters<History['pushState']>) => {
    original.apply(history, args);
    navigate();
  };
}
on(window, 'popstate', navigate);
if (HASH) on(window, 'hashchange', navigate);
on(window, 'scroll', measureScroll);
on(window, 'focus', tick);
on(window, 'blur', tick);
on(document, 'visibilitychange', () => (document.hidden ? hide() : tick()));
on(document, 'click', (event) => onClick(event as MouseEvent, (name, props) => api('event', name, props)));
if (__FF_VITALS__) watchVitals();

// Calls made before the script loaded run before the first pageview, so a refusal stops it.
for (const call of host.footfall?.q || []) api(...(call as unknown as Parameters<Api>));
host.footfall = api;
navigate();
// Ask only who has not chosen, not even through a consent call of the page (its stub ran above).
if (__FF_CONSENT__ && !refused && !choice) {
  const ask = () => showBar((yes) => api('consent', yes));
  // A tag without defer or async in <head> runs before there is a body to show the bar in.
  if (document.body) ask();
  else on(document, 'DOMContentLoaded', ask);
}
