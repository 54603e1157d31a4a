// Placeholders filled by render.ts (site, mode, endpoint) and by the build's `define` (variant).
// Each one is read exactly once here so the minified bundle holds one occurrence of each.
declare const __FF_SITE__: string;
declare const __FF_COOKIELESS__: boolean;
declare const __FF_API__: string;

const script = document.currentScript as HTMLScriptElement | null;
const data = script?.dataset || {};

/** The site id baked in by the gateway: the tag needs no data-site attribute. */
export const SITE = __FF_SITE__;
/** Cookieless mode: nothing is ever written to the browser. */
export const COOKIELESS = __FF_COOKIELESS__;
/**
 * Where events go: `data-api` on the tag (a site proxying through its own domain), else the endpoint
 * baked in by the gateway, else `/api/e` beside the script's own URL.
 */
export const API = data.api || __FF_API__ || new URL('/api/e', script?.src || location.href).href;
/** `data-hash`: hash-based routes (`/#/page`) are pages of their own. */
export const HASH = data.hash != null;
/** `data-require-consent`: nothing is sent or stored until `footfall('consent', true)`. */
export const OPT_IN = data.requireConsent != null;
