import { AppError } from '@footfall/http';
import {
  renderTracker,
  TAG_ADDONS,
  TRACKER_VARIANTS,
  type TrackerAddon,
  type TrackerVariant,
} from '@footfall/tracker';
import { Hono } from 'hono';
import type { IngestDeps } from '../deps.ts';

/**
 * `GET /js/<site id>.js`: the site's tracker with its id and mode baked in, so the tag needs no
 * `data-site`. Cached by browsers and CDNs for an hour and revalidated with its ETag.
 * `?variant=vitals` serves the build that also reports Core Web Vitals. A site with the consent
 * bar on gets the consent build of the variant asked for, with its bar's text and colours; one
 * with a Paddle connection gets the Paddle.js add-on after it (packages/tracker/src/browser/paddle.ts);
 * `?addons=forms` adds form submissions and class-marked clicks (browser/forms.ts).
 */
export function scriptRoutes(deps: Pick<IngestDeps, 'sites'>) {
  const rendered = new Map<string, { code: string; etag: string }>();
  return new Hono().get('/js/:file', (c) => {
    const file = c.req.param('file');
    const id = file.endsWith('.js') ? file.slice(0, -3) : '';
    const site = id ? deps.sites.get(id) : undefined;
    if (site === undefined) throw new AppError('not_found', `no tracker for ${file}`);
    const variant = (c.req.query('variant') ?? 'default') as TrackerVariant;
    if (!TRACKER_VARIANTS.includes(variant)) {
      throw new AppError('invalid_parameter', `variant must be one of ${TRACKER_VARIANTS.join(', ')}`, {
        field: 'variant',
      });
    }
    const asked = (c.req.query('addons') ?? '').split(',').filter((a) => a !== '');
    const unknown = asked.find((a) => !(TAG_ADDONS as readonly string[]).includes(a));
    if (unknown !== undefined) {
      throw new AppError(
        'invalid_parameter',
        `addons: "${unknown}" is none; a tag may ask for ${TAG_ADDONS.join(', ')}`,
        {
          field: 'addons',
        },
      );
    }
    const { consentBar } = site;
    // Everything the script depends on is in the key, so a changed setting (seen by the site cache
    // within its 2 s) renders a new script with a new ETag.
    const bar = consentBar
      ? JSON.stringify([consentBar.text, consentBar.background, consentBar.foreground])
      : '';
    const addons: TrackerAddon[] = [
      ...(site.paddle ? (['paddle'] as const) : []),
      ...TAG_ADDONS.filter((a) => asked.includes(a)),
    ];
    const cacheKey = `${site.id}:${site.cookieless ? 1 : 0}:${variant}:${bar}:${addons.join()}`;
    let script = rendered.get(cacheKey);
    if (script === undefined) {
      script = renderTracker({ siteId: site.id, cookieless: site.cookieless, variant, consentBar, addons });
      if (rendered.size > 10_000) rendered.clear();
      rendered.set(cacheKey, script);
    }
    c.header('ETag', script.etag);
    c.header('Cache-Control', 'public, max-age=3600, stale-while-revalidate=86400');
    c.header('Access-Control-Allow-Origin', '*');
    if (c.req.header('if-none-match') === script.etag) return c.body(null, 304);
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    return c.body(script.code);
  });
}
