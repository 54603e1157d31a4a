import {
  type ControlDb,
  getMilestone,
  getSite,
  listMilestones,
  MILESTONE_KINDS,
  type Milestone,
  type MilestoneKind,
  type MilestoneShare,
  markMilestoneSeen,
  milestoneByToken,
  milestoneSettings,
  type Site,
  setMilestoneKinds,
  shareMilestone,
  unshareMilestone,
} from '@footfall/control';
import { AppError } from '@footfall/http';
import { type Context, Hono } from 'hono';
import * as v from 'valibot';
import type { AuthEnv } from '../auth/env.ts';
import { readJson } from '../auth/json.ts';
import { requireSiteRead } from '../auth/site-read.ts';
import type { QueryDeps } from '../deps.ts';
import { milestonePage, notSharedPage } from '../milestones/page.ts';
import { type MilestoneWords, milestoneWords } from '../milestones/words.ts';
import type { MomentCard } from '../page-preloads.ts';
import { publicOrigin } from './auth-helpers.ts';
import { accentOf, drawnCard, onlyParams, pick } from './cards.ts';
import { requireModule } from './modules.ts';

const Settings = v.strictObject({
  kinds: v.pipe(v.array(v.picklist(MILESTONE_KINDS)), v.maxLength(MILESTONE_KINDS.length)),
});
const Seen = v.strictObject({
  kind: v.picklist(MILESTONE_KINDS),
  step: v.pipe(v.string(), v.minLength(1), v.maxLength(20)),
});
const ShareOptions = v.strictObject({ show_amount: v.optional(v.boolean()) });
const CARD_PARAMS = ['theme', 'accent', 'amount'];

/** The kinds that need a module beside milestones: off with it, they are neither checked nor shown. */
const NEEDS: Partial<Record<MilestoneKind, 'revenue' | 'goals'>> = {
  revenue: 'revenue',
  first_sale: 'revenue',
  first_goal: 'goals',
};
const shown = (site: Site, kinds: readonly MilestoneKind[], m: Milestone) =>
  kinds.includes(m.kind) && (NEEDS[m.kind] === undefined || site.modules[NEEDS[m.kind]!]);

/**
 * The card of the moment a site's report shows a person first: their newest milestone of a kind
 * shown that they have not closed (apps/dashboard/src/site/Milestones.tsx), as its `<img>` asks
 * for it (page-preloads.ts names it in the page's Link header); null for none.
 */
export function momentCard(ctl: ControlDb, site: Site, personId: string): MomentCard | null {
  if (!site.modules.milestones) return null;
  const kinds = milestoneSettings(ctl, site.id).kinds;
  const m = listMilestones(ctl, site.id, personId).find((x) => shown(site, kinds, x) && !x.seen);
  if (m === undefined) return null;
  const step = encodeURIComponent(m.step);
  return {
    path: `/api/v1/sites/${site.id}/milestones/${m.kind}/${step}/card`,
    // money shows its amount to the people of the site (the dashboard's isMoney)
    amount: NEEDS[m.kind] === 'revenue' ? 'show' : 'hide',
  };
}

const milestoneUrl = (c: Context, deps: QueryDeps, token: string | null) =>
  token === null ? null : `${publicOrigin(c, deps.config.baseUrl)}/m/${token}`;

/**
 * Milestones (docs/milestones.md): what a site reached, as the daily check stored it. People read
 * them and close each one's moment for themselves; owners choose the kinds and make a milestone
 * public at `/m/{token}`, a page whose preview image is its card.
 */
export function milestoneRoutes(deps: QueryDeps) {
  const ctl = deps.control;

  const answer = (c: Context<AuthEnv>, site: Site) => {
    const principal = c.get('principal');
    const person = principal?.kind === 'session' ? principal.person.id : null;
    const owner = principal?.kind === 'session' && principal.role === 'owner';
    const settings = milestoneSettings(ctl, site.id);
    const milestones = listMilestones(ctl, site.id, person)
      .filter((m) => shown(site, settings.kinds, m))
      .map((m) => ({
        kind: m.kind,
        step: m.step,
        value: m.value,
        currency: m.currency,
        goal: m.goal,
        day: m.day,
        ...wordsJson(milestoneWords(m, site.domain, true)),
        // only a signed-in person has closed moments; an API key reads null
        seen: person === null ? null : m.seen,
        shared: m.share !== null,
        ...(owner ? { share: m.share === null ? null : shareJson(c, m.share) } : {}),
      }));
    return { kinds: settings.kinds, checked_day: settings.checkedDay, milestones };
  };
  const shareJson = (c: Context, s: MilestoneShare) => ({
    url: milestoneUrl(c, deps, s.token),
    show_amount: s.showAmount,
    created_at: new Date(s.createdAt).toISOString(),
  });
  const siteOf = (c: Context<AuthEnv>) => {
    const site = requireSiteRead(c, c.req.param('site') ?? '');
    requireModule(site, 'milestones');
    return site;
  };
  const milestoneOf = (c: Context<AuthEnv>, site: Site) => {
    const m = getMilestone(ctl, site.id, c.req.param('kind') ?? '', c.req.param('step') ?? '');
    if (!shown(site, milestoneSettings(ctl, site.id).kinds, m))
      throw new AppError('not_found', 'no such milestone');
    return m;
  };
  /** The public milestone a token shows, while its site keeps milestones on. */
  const publicOf = (token: string) => {
    const m = milestoneByToken(ctl, token);
    const site = m === undefined ? undefined : getSite(ctl, m.siteId);
    if (
      m === undefined ||
      !site?.modules.milestones ||
      !shown(site, milestoneSettings(ctl, site.id).kinds, m)
    )
      return undefined;
    return { m, site };
  };
  /** The site's own colour when it has one, else Footfall's. */
  const accentFor = (site: Site) => {
    const colour = (site.colour ?? '').replace(/^#/, '').toLowerCase();
    return /^[0-9a-f]{6}$/.test(colour) ? colour : '4338ca';
  };

  return new Hono<AuthEnv>()
    .get('/api/v1/sites/:site/milestones', (c) => c.json(answer(c, siteOf(c))))
    .put('/api/v1/sites/:site/milestones', async (c) => {
      const site = siteOf(c);
      const body = await readJson(c, Settings);
      setMilestoneKinds(ctl, site.id, body.kinds);
      return c.json(answer(c, site));
    })
    .post('/api/v1/sites/:site/milestones/seen', async (c) => {
      const site = siteOf(c);
      const body = await readJson(c, Seen);
      const principal = c.get('principal');
      if (principal?.kind !== 'session')
        throw new AppError('forbidden', 'only a signed-in person closes moments');
      const m = getMilestone(ctl, site.id, body.kind, body.step);
      markMilestoneSeen(ctl, m.id, principal.person.id);
      return c.body(null, 204);
    })
    .get('/api/v1/sites/:site/milestones/:kind/:step/card', async (c) => {
      const site = siteOf(c);
      const query = c.req.query();
      onlyParams(query, CARD_PARAMS);
      const theme = pick(query.theme, ['light', 'dark'] as const, 'theme', 'light');
      const accent = accentOf(query.accent, accentFor(site));
      const amount = pick(query.amount, ['show', 'hide'] as const, 'amount', 'hide');
      const m = milestoneOf(c, site);
      const words = milestoneWords(m, site.domain, amount === 'show');
      return drawnCard(c, deps, milestoneCard(site, words, theme, accent));
    })
    .post('/api/v1/sites/:site/milestones/:kind/:step/share', async (c) => {
      const site = siteOf(c);
      const body = await readJson(c, ShareOptions);
      const m = milestoneOf(c, site);
      const share = shareMilestone(ctl, m.id, body.show_amount ?? false);
      return c.json({ share: shareJson(c, share) }, share.created ? 201 : 200);
    })
    .delete('/api/v1/sites/:site/milestones/:kind/:step/share', (c) => {
      const site = siteOf(c);
      unshareMilestone(ctl, milestoneOf(c, site).id);
      return c.body(null, 204);
    })
    .get('/m/:token', (c) => {
      const found = publicOf(c.req.param('token'));
      c.header('Cache-Control', 'no-cache');
      c.header('Referrer-Policy', 'no-referrer');
      c.header('X-Content-Type-Options', 'nosniff');
      c.header('Content-Security-Policy', "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'");
      if (!found) {
        // a person following a revoked link reads why; a program gets the JSON error
        if (!/text\/html/.test(c.req.header('accept') ?? ''))
          throw new AppError('not_found', 'this milestone is not shared (any more)');
        return c.html(notSharedPage(), 404);
      }
      const { m, site } = found;
      const words = milestoneWords(m, site.domain, m.showAmount);
      const url = milestoneUrl(c, deps, c.req.param('token'))!;
      return c.html(milestonePage({ words, domain: site.domain, url, image: `${url}/card.png` }));
    })
    .get('/m/:token/card.png', async (c) => {
      const found = publicOf(c.req.param('token'));
      if (!found) throw new AppError('not_found', 'this milestone is not shared (any more)');
      const { m, site } = found;
      const words = milestoneWords(m, site.domain, m.showAmount);
      return drawnCard(c, deps, milestoneCard(site, words, 'light', accentFor(site)), 'public, max-age=300');
    });
}

/** A milestone's words in the API: the card's big line as one headline, its title and detail. */
const wordsJson = (w: MilestoneWords) => ({
  headline: `${w.value} ${w.label}`,
  title: w.title,
  detail: w.detail,
});

function milestoneCard(
  site: Site,
  words: { value: string; label: string; detail: string },
  theme: 'light' | 'dark',
  accent: string,
) {
  return {
    domain: site.domain,
    kicker: 'Milestone reached',
    value: words.value,
    label: words.label,
    detail: words.detail,
    series: [],
    theme,
    accent: `#${accent}`,
    width: 1200,
    height: 630,
  };
}
