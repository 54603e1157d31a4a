import {
  createShare,
  deleteShare,
  getSite,
  issueShareCredential,
  listShares,
  type Share,
  shareByToken,
  sharePasswordMatches,
  updateShare,
} from '@footfall/control';
import { AppError } from '@footfall/http';
import { type Context, Hono } from 'hono';
import * as v from 'valibot';
import type { AuthEnv } from '../auth/env.ts';
import { readJson } from '../auth/json.ts';
import { requireSiteRead } from '../auth/site-read.ts';
import type { QueryDeps } from '../deps.ts';
import { checkKeys, publicOrigin } from './auth-helpers.ts';
import { requireModule } from './modules.ts';
import { siteJson } from './views.ts';

/** Wrong passwords a link takes in SHARE_GUESS_WINDOW_MS, from anywhere, before it delays more. */
export const SHARE_GUESSES = 20;
export const SHARE_GUESS_WINDOW_MS = 10 * 60_000;

const label = v.nullable(v.pipe(v.string(), v.maxLength(200)));
const password = v.nullable(v.pipe(v.string(), v.maxLength(1000)));
const NewShare = v.strictObject({
  label: v.optional(label),
  password: v.optional(password),
  show_notes: v.optional(v.boolean()),
});
const SharePatch = NewShare;
const Opening = v.strictObject({ password: v.optional(v.pipe(v.string(), v.maxLength(1000))) });

/**
 * Wrong passwords per link in the last ten minutes, wherever they come from (spec, Authentication
 * 10): past SHARE_GUESSES the link answers 429 with Retry-After until the oldest leaves the window.
 * Memory only: a restart forgets them, as it forgets sign-in failures.
 */
class ShareGuesses {
  readonly #wrong = new Map<string, number[]>();
  /** password checks running per link: they count as wrong until they are known not to be */
  readonly #pending = new Map<string, number>();
  constructor(readonly now: () => number) {}

  #recent(id: string): number[] {
    const since = this.now() - SHARE_GUESS_WINDOW_MS;
    const list = (this.#wrong.get(id) ?? []).filter((t) => t > since);
    if (list.length === 0) this.#wrong.delete(id);
    else this.#wrong.set(id, list);
    return list;
  }

  /**
   * Takes one attempt at the link's password: a `done` to call with the outcome, or (without
   * `done`) the seconds to wait. Attempts still being checked count against the limit, so a burst
   * of parallel guesses gets no more than SHARE_GUESSES through.
   */
  attempt(id: string): { wait: number; done?: (wrong: boolean) => void } {
    const list = this.#recent(id);
    const pending = this.#pending.get(id) ?? 0;
    if (list.length + pending >= SHARE_GUESSES) {
      const oldest = list[Math.max(0, list.length + pending - SHARE_GUESSES)] ?? this.now();
      return { wait: Math.max(1, Math.ceil((oldest + SHARE_GUESS_WINDOW_MS - this.now()) / 1000)) };
    }
    this.#pending.set(id, pending + 1);
    return {
      wait: 0,
      done: (wrong) => {
        const left = (this.#pending.get(id) ?? 1) - 1;
        if (left > 0) this.#pending.set(id, left);
        else this.#pending.delete(id);
        if (wrong) this.#wrong.set(id, [...this.#recent(id), this.now()]);
      },
    };
  }
}

/** A share link as its owners see it: with its address to copy. */
function shareJson(c: Context, deps: QueryDeps, s: Share) {
  return {
    id: s.id,
    label: s.label,
    url: s.token === null ? null : `${publicOrigin(c, deps.config.baseUrl)}/share/${s.token}`,
    has_password: s.hasPassword,
    show_notes: s.showNotes,
    created_at: new Date(s.createdAt).toISOString(),
    updated_at: new Date(s.updatedAt).toISOString(),
    last_used_at: s.lastUsedAt === null ? null : new Date(s.lastUsedAt).toISOString(),
  };
}

/**
 * Share links (docs/api.md, Share links): owners make, change and revoke read-only links to a
 * site's dashboard; whoever holds a link asks `GET /shared/{token}` what it opens and
 * `POST /shared/{token}/session` (with the password, if it has one) for a credential that reads
 * the shared site's report through `/api/v1` (SHARE_READS in access.ts) for 24 hours.
 */
export function shareRoutes(deps: QueryDeps) {
  const ctl = deps.control;
  const guesses = new ShareGuesses(deps.now);
  /** The link a token opens, while the site shares (404 for an unknown or revoked one). */
  const open = (token: string) => {
    const share = shareByToken(ctl, token);
    const site = share === undefined ? undefined : getSite(ctl, share.siteId);
    if (!share || !site?.modules.shares) throw new AppError('not_found', 'no such share link (revoked?)');
    return { share, site };
  };
  return new Hono<AuthEnv>()
    .get('/sites/:site/shares', async (c) => {
      const site = requireSiteRead(c, c.req.param('site'));
      requireModule(site, 'shares');
      return c.json({ shares: (await listShares(ctl, site.id)).map((s) => shareJson(c, deps, s)) });
    })
    .post('/sites/:site/shares', async (c) => {
      const site = requireSiteRead(c, c.req.param('site'));
      requireModule(site, 'shares');
      const body = await readJson(c, NewShare);
      const share = await createShare(ctl, site.id, {
        label: body.label,
        password: body.password,
        showNotes: body.show_notes,
      });
      return c.json({ share: shareJson(c, deps, share) }, 201);
    })
    .patch('/sites/:site/shares/:id', async (c) => {
      const site = requireSiteRead(c, c.req.param('site'));
      requireModule(site, 'shares');
      const body = await readJson(c, SharePatch);
      const share = await updateShare(ctl, site.id, c.req.param('id'), {
        label: body.label,
        password: body.password,
        showNotes: body.show_notes,
      });
      return c.json({ share: shareJson(c, deps, share) });
    })
    .delete('/sites/:site/shares/:id', async (c) => {
      const site = requireSiteRead(c, c.req.param('site'));
      requireModule(site, 'shares');
      await deleteShare(ctl, site.id, c.req.param('id'));
      return c.body(null, 204);
    })
    .get('/shared/:token', (c) => {
      const { share, site } = open(c.req.param('token'));
      c.header('Cache-Control', 'no-store');
      // behind a password, the link says nothing of the site until it is given
      if (share.hasPassword)
        return c.json({ password_required: true, site: null, show_notes: share.showNotes });
      return c.json({ password_required: false, site: siteJson(site, false), show_notes: share.showNotes });
    })
    .post('/shared/:token/session', async (c) => {
      const body = await readJson(c, Opening);
      const { share, site } = open(c.req.param('token'));
      if (share.passwordHash !== null) {
        const attempt = guesses.attempt(share.id);
        if (attempt.done === undefined) {
          throw new AppError('rate_limited', 'too many wrong passwords for this link: try again later', {
            retryAfter: attempt.wait,
          });
        }
        const given = body.password ?? '';
        let ok = false;
        try {
          ok = await deps.passwordChecks.password(checkKeys(c), () =>
            sharePasswordMatches(share.passwordHash, given),
          );
        } finally {
          attempt.done(!ok);
        }
        if (!ok) throw new AppError('unauthorized', 'wrong password', { field: 'password' });
      }
      const { credential, expiresAt } = issueShareCredential(ctl, share);
      c.header('Cache-Control', 'no-store');
      return c.json({
        credential,
        expires_at: new Date(expiresAt).toISOString(),
        site: siteJson(site, false),
        show_notes: share.showNotes,
      });
    });
}
