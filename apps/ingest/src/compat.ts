import { bareHost } from '@footfall/config';
import { AppError, parseInput } from '@footfall/http';
import { type IngestEvent, IngestEventSchema, LIMITS } from '@footfall/schema';
import { acceptIngestEvent } from './accept-event.ts';
import type { IngestDeps } from './deps.ts';
import type { IngestRequest } from './ingest-request.ts';
import type { SiteInfo } from './sites.ts';

/**
 * The endpoints of Plausible's and Umami's trackers, so a site can point the script it has at
 * Footfall first and change its tag later (docs/ingest.md, "Plausible and Umami scripts"). Each
 * body is translated into `POST /api/e`'s and accepted as one: the same checks, bot, consent and
 * privacy rules, enrichment and WAL. What their bodies carry and Footfall has no place for is
 * dropped, as documented there.
 */

type Body = Record<string, unknown>;

const isObject = (x: unknown): x is Body => typeof x === 'object' && x !== null && !Array.isArray(x);

/** The first of `keys` that the body has (Plausible takes `n` or `name`, `u` or `url`, ...). */
function pick(body: Body, ...keys: string[]): unknown {
  for (const key of keys) if (body[key] !== undefined && body[key] !== null) return body[key];
  return undefined;
}

function text(body: Body, field: string, ...keys: string[]): string | undefined {
  const value = pick(body, field, ...keys);
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new AppError('invalid_body', `${field} must be a string`, { field });
  return value;
}

/** A whole number from a number or a numeric string (Plausible's `sd` and `e` come as either). */
function whole(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : undefined;
}

/**
 * Properties as both tools keep them: strings, numbers and booleans; empty, null, list and object
 * values left out; the first LIMITS.propCount kept. Plausible also sends them as a JSON string.
 */
function props(raw: unknown): IngestEvent['p'] {
  let value = raw;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  if (!isObject(value)) return undefined;
  const out: Record<string, string | number | boolean> = {};
  let count = 0;
  for (const [key, v] of Object.entries(value)) {
    if (count >= LIMITS.propCount) break;
    if (key.trim() === '' || v === '' || v === null) continue;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') {
      out[key] = v;
      count++;
    }
  }
  return count === 0 ? undefined : out;
}

/**
 * Accepts the translated event as `/api/e` would; an error names the field of the original body
 * (`fields`: `/api/e`'s name to the sender's).
 */
async function acceptAs(
  deps: IngestDeps,
  r: IngestRequest,
  event: Record<string, unknown>,
  fields: Record<string, string>,
  options: { acceptLanguage?: string | undefined } = {},
): Promise<void> {
  try {
    await acceptIngestEvent(deps, r, parseInput(IngestEventSchema, event), options);
  } catch (error) {
    const field = error instanceof AppError && error.field !== undefined ? fields[error.field] : undefined;
    if (!(error instanceof AppError) || error.field === undefined || field === undefined) throw error;
    const message = error.message.replace(new RegExp(`^${error.field}\\b`), field);
    throw new AppError(error.code, message, { field });
  }
}

/**
 * `POST /api/event`, Plausible's Events API: the body its script (`@plausible-analytics/tracker`,
 * script version 36) and its server integrations send, `Content-Type` text/plain or JSON. The site
 * is the first of `d`'s comma-separated domains that is a Footfall site's (else the page's host).
 * `pageview` is a pageview, `engagement` an engagement event (`e` milliseconds, `sd` scroll depth),
 * any other name a custom event with its props; revenue (`$`) is kept as the props
 * `revenue_amount` and `revenue_currency`.
 */
export async function acceptPlausibleEvent(deps: IngestDeps, r: IngestRequest): Promise<void> {
  const body = r.body;
  if (!isObject(body)) throw new AppError('invalid_body', 'the body must be a JSON object');
  const nameValue = pick(body, 'n', 'name');
  if (nameValue === undefined) throw new AppError('invalid_body', 'n is required', { field: 'n' });
  if (typeof nameValue !== 'string' && typeof nameValue !== 'number') {
    throw new AppError('invalid_body', 'n must be a string', { field: 'n' });
  }
  const name = String(nameValue);
  const url = text(body, 'u', 'url');
  if (url === undefined) throw new AppError('invalid_body', 'u is required', { field: 'u' });
  const domains = text(body, 'd', 'domain') ?? hostOf(url) ?? '';
  const site = plausibleSite(deps, domains);
  const event: Record<string, unknown> = { s: site.id, u: url };
  const referrer = text(body, 'r', 'referrer');
  if (referrer !== undefined) event['r'] = referrer;
  const width = whole(body['w']);
  if (width !== undefined) event['w'] = width;
  if (name === 'pageview') event['k'] = 'pv';
  else if (name === 'engagement') {
    event['k'] = 'en';
    const engaged = whole(body['e']);
    const depth = whole(body['sd']);
    if (engaged === undefined && depth === undefined) {
      throw new AppError('invalid_body', 'an engagement event needs e or sd, whole numbers', { field: 'e' });
    }
    if (engaged !== undefined) event['e'] = Math.min(engaged, 24 * 60 * 60 * 1000);
    if (depth !== undefined) event['d'] = Math.min(depth, 100);
  } else {
    event['k'] = 'ev';
    event['n'] = name;
    const p = props(pick(body, 'p', 'props', 'm', 'meta')) ?? {};
    const revenue = pick(body, '$', 'revenue');
    if (isObject(revenue) && revenue['amount'] !== undefined && typeof revenue['currency'] === 'string') {
      p['revenue_amount'] = String(revenue['amount']);
      p['revenue_currency'] = revenue['currency'];
    }
    if (Object.keys(p).length > 0) event['p'] = props(p);
  }
  await acceptAs(deps, r, event, { u: 'u', r: 'r', n: 'n', p: 'p' });
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

function plausibleSite(deps: IngestDeps, domains: string): SiteInfo {
  const names = domains
    .split(',')
    .map((d) => bareHost(d.trim()))
    .filter((d) => d !== '');
  for (const name of names) {
    const site = deps.sites.byDomain(name);
    if (site !== undefined) return site;
  }
  throw new AppError('not_found', `no site has the domain ${names.join(' or ') || '(none)'}`, { field: 'd' });
}

/**
 * `POST /api/send`, Umami's: `{ type, payload }` as its script and `@umami/node` send it. The
 * site is `payload.website`: a Footfall site id, or the Umami website id recorded on a site. An event without `name` is a pageview, with one a
 * custom event whose `data` are its props; `url` may be a path (on `hostname`, else the site's
 * domain) or absent (the home page, as `@umami/node`'s `track(name)` sends); `language` stands for
 * the visitor's. `identify` is answered and stores nothing: Footfall keeps no data about a person.
 */
export async function acceptUmamiEvent(deps: IngestDeps, r: IngestRequest): Promise<void> {
  const body = r.body;
  if (!isObject(body)) throw new AppError('invalid_body', 'the body must be a JSON object');
  const type = body['type'] ?? 'event';
  if (type !== 'event' && type !== 'identify') {
    throw new AppError('invalid_body', 'type must be event or identify', { field: 'type' });
  }
  const payload = body['payload'];
  if (!isObject(payload))
    throw new AppError('invalid_body', 'payload must be an object', { field: 'payload' });
  const website = text(payload, 'website');
  if (website === undefined) {
    throw new AppError('invalid_body', 'payload.website is required', { field: 'payload.website' });
  }
  const site = deps.sites.get(website) ?? deps.sites.byUmamiId(website.toLowerCase());
  if (site === undefined) {
    throw new AppError(
      'not_found',
      `unknown site ${website}: payload.website must be a Footfall site id, or the Umami website id recorded on one`,
      { field: 'payload.website' },
    );
  }
  if (type === 'identify') return;
  const hostname = text(payload, 'hostname');
  const url = text(payload, 'url');
  const event: Record<string, unknown> = {
    s: site.id,
    u:
      url === undefined || url === ''
        ? `https://${hostname ?? site.domain}/`
        : url.startsWith('/')
          ? `https://${hostname ?? site.domain}${url}`
          : url,
  };
  const referrer = text(payload, 'referrer');
  if (referrer !== undefined) event['r'] = referrer;
  const screen = /^(\d{1,5})x(\d{1,5})$/.exec(text(payload, 'screen') ?? '');
  if (screen) {
    event['w'] = Number(screen[1]);
    event['h'] = Number(screen[2]);
  }
  const name = text(payload, 'name');
  if (name === undefined || name === '') event['k'] = 'pv';
  else {
    event['k'] = 'ev';
    event['n'] = name;
    const p = props(payload['data']);
    if (p !== undefined) event['p'] = p;
  }
  const fields = {
    s: 'payload.website',
    u: 'payload.url',
    r: 'payload.referrer',
    n: 'payload.name',
    p: 'payload.data',
  };
  await acceptAs(deps, r, event, fields, { acceptLanguage: text(payload, 'language') });
}
