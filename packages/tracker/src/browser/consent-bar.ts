/**
 * The site's own consent bar (the `consent` builds only; main.ts reaches it behind __FF_CONSENT__,
 * so the other builds drop it). It asks once per origin and remembers the answer in localStorage,
 * also on cookieless sites: the key holds the visitor's choice, never anything that identifies them.
 */
// Filled in by render.ts: the text as a string literal, the colours as checked `#rrggbb` literals.
// Each is read once, inside showBar, so a build that never shows the bar holds none of them.
declare const __FF_CONSENT_TEXT__: string;
declare const __FF_CONSENT_BG__: string;
declare const __FF_CONSENT_FG__: string;

/**
 * localStorage key of the choice: `1` accepted, `0` declined (main.ts reads and writes it with
 * store.ts `stored`; with storage blocked the visitor is asked on every page).
 */
export const CHOICE_KEY = 'footfall_consent';

let bar: HTMLElement | undefined;
const element = (tag: string): HTMLElement => document.createElement(tag);

/** Takes the bar away (a choice was made). */
export const hideBar = (): void => bar?.remove();

/**
 * Shows the bar at the bottom of the page: a labelled region holding the text and two real
 * buttons of equal weight, first in the page's tab order so a keyboard reaches it at once. It
 * lives in a shadow root, so the page's own CSS neither hides nor restyles it; its stylesheet is
 * a constructed one, which a Content-Security-Policy without 'unsafe-inline' styles still allows.
 */
export const showBar = (decide: (yes: boolean) => void): void => {
  const background = __FF_CONSENT_BG__;
  const foreground = __FF_CONSENT_FG__;
  const host = element('footfall-consent');
  const root = host.attachShadow({ mode: 'open' });
  const css = `:host{all:initial;position:fixed;inset:auto 0 0;z-index:2147483647;display:flex;flex-wrap:wrap;align-items:center;gap:8px 16px;padding:12px 16px;background:${background};color:${foreground};font:16px/1.5 system-ui,sans-serif}p{margin:0;flex:1 1 240px}button{font:inherit;color:inherit;background:0 0;border:2px solid;border-radius:6px;padding:8px 20px;min-height:44px}button:hover{background:${foreground};color:${background}}button:focus-visible{outline:3px solid ${foreground};outline-offset:2px}`;
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    root.adoptedStyleSheets = [sheet];
  } catch {
    // no constructed stylesheets (Safari before 16.4): a style element does the same
    const style = element('style');
    style.textContent = css;
    root.append(style);
  }
  const text = element('p');
  text.textContent = __FF_CONSENT_TEXT__; // text, never markup
  root.append(text);
  for (const [label, yes] of [
    ['Accept', true],
    ['Decline', false],
  ] as const) {
    const button = element('button');
    button.textContent = label;
    button.onclick = () => decide(yes);
    root.append(button);
  }
  host.setAttribute('role', 'region');
  host.setAttribute('aria-label', 'Analytics consent');
  bar = host;
  document.body.prepend(host);
};
