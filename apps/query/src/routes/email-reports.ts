import {
  ALL_SITES,
  EMAIL_REPORT_KINDS,
  type EmailReportKind,
  emailReportChoices,
  emailReportFailure,
  getPerson,
  getSite,
  getSiteLayout,
  listSites,
  type PersonRow,
  REPORT_LANGUAGES,
  type ReportLanguage,
  readUnsubscribeToken,
  scopeAllows,
  setEmailReportChoice,
  siteScopeOf,
  stopEmailReport,
} from '@footfall/control';
import { AppError } from '@footfall/http';
import { type Context, Hono } from 'hono';
import * as v from 'valibot';
import { escapeHtml } from '../alerts/message.ts';
import type { AuthEnv } from '../auth/env.ts';
import { readJson } from '../auth/json.ts';
import type { QueryDeps } from '../deps.ts';
import { type ReportTarget, scopeOf, sitesOf } from '../email-reports/run.ts';
import { MAIL_WORDS } from '../email-reports/words.ts';
import { publicOrigin, sessionPrincipal } from './auth-helpers.ts';

const language = v.optional(v.picklist(REPORT_LANGUAGES));
const Choice = v.strictObject({ weekly: v.boolean(), monthly: v.boolean(), language });
const SendNow = v.strictObject({ period: v.picklist(['week', 'month']), language });

/**
 * E-mail reports (docs/email-reports.md): each person's choice of weekly and monthly reports per
 * site they may read and of all of them at once (`all` where a site id goes), "send me one now",
 * and the unsubscribe link an e-mail carries, which works
 * without signing in (its token is signed; opening it changes nothing, its button or a mail
 * program's one-click POST stops the report).
 */
export function emailReportRoutes(deps: QueryDeps) {
  const ctl = deps.control;

  /** The caller and the sites they may read, in their sites list's order. */
  const me = async (c: Context<AuthEnv>) => {
    const person = await getPerson(ctl, sessionPrincipal(c).person.id);
    if (!person) throw new AppError('unauthorized', 'sign in first');
    const scope = await siteScopeOf(ctl, person);
    const layout = await getSiteLayout(ctl, (id) => scopeAllows(scope, id));
    const order = new Map(layout.order.map((id, i) => [id, i]));
    const sites = listSites(ctl)
      .filter((s) => scopeAllows(scope, s.id))
      .sort(
        (a, b) => (order.get(a.id) ?? Number.MAX_SAFE_INTEGER) - (order.get(b.id) ?? Number.MAX_SAFE_INTEGER),
      );
    return { person, sites };
  };
  /** The site of the path, or all the caller's sites for `all` (404 when they may read none). */
  const targetOf = async (c: Context<AuthEnv>): Promise<{ person: PersonRow; target: ReportTarget }> => {
    const { person, sites } = await me(c);
    const id = c.req.param('site') ?? '';
    if (id === ALL_SITES) {
      if (sites.length === 0) throw new AppError('not_found', 'there is no site you may read');
      return { person, target: { all: await sitesOf(deps, person) } };
    }
    const site = sites.find((s) => s.id === id);
    if (site === undefined) {
      if (getSite(ctl, id) === undefined) throw new AppError('not_found', `no site ${id}`);
      throw new AppError('forbidden', 'you may not read this site');
    }
    return { person, target: site };
  };
  const line = (
    personId: string,
    target: ReportTarget,
    choice: { weekly: boolean; monthly: boolean; language: ReportLanguage } | undefined,
  ) => {
    const id = scopeOf(target);
    const failure = emailReportFailure(ctl, personId, id);
    return {
      site: id,
      ...('all' in target ? { sites: target.all.length } : { domain: target.domain }),
      weekly: choice?.weekly ?? false,
      monthly: choice?.monthly ?? false,
      language: choice?.language ?? 'en',
      last_failure: failure && {
        kind: failure.kind,
        period: { from: failure.from, to: failure.to },
        message: failure.message,
        next_try_at: failure.nextTryAt === null ? null : new Date(failure.nextTryAt).toISOString(),
      },
    };
  };

  return new Hono<AuthEnv>()
    .get('/api/v1/account/email-reports', async (c) => {
      const { person, sites } = await me(c);
      const choices = emailReportChoices(ctl, person.id);
      const all = { all: await sitesOf(deps, person) };
      return c.json({
        mail_ready: deps.alerts?.mailReady ?? false,
        sites: sites.map((s) => line(person.id, s, choices.get(s.id))),
        all_sites: sites.length === 0 ? null : line(person.id, all, choices.get(ALL_SITES)),
      });
    })
    .put('/api/v1/account/email-reports/:site', async (c) => {
      const { person, target } = await targetOf(c);
      const { language, ...choice } = await readJson(c, Choice);
      const id = scopeOf(target);
      setEmailReportChoice(ctl, person.id, id, choice, publicOrigin(c, deps.config.baseUrl), language);
      return c.json(line(person.id, target, emailReportChoices(ctl, person.id).get(id)));
    })
    .post('/api/v1/account/email-reports/:site/send', async (c) => {
      const { person, target } = await targetOf(c);
      const body = await readJson(c, SendNow);
      const reports = deps.alerts?.emailReports;
      if (!reports || !deps.alerts?.mailReady) {
        throw new AppError('mail_not_configured', 'e-mail reports need FOOTFALL_SMTP_URL on the server');
      }
      const kind: EmailReportKind = body.period === 'week' ? 'weekly' : 'monthly';
      const id = scopeOf(target);
      const chosen = body.language ?? emailReportChoices(ctl, person.id).get(id)?.language ?? 'en';
      const sent = await reports.sendNow(person, target, kind, publicOrigin(c, deps.config.baseUrl), chosen);
      return c.json({ sent_to: sent.to, period: sent.period });
    })
    .get('/unsubscribe/:token', async (c) => unsubscribePage(c, deps, false))
    .post('/unsubscribe/:token', async (c) => unsubscribePage(c, deps, true));
}

/** The unsubscribe page: what the link stops and a button (GET), or that it is stopped (POST). */
async function unsubscribePage(c: Context, deps: QueryDeps, stop: boolean) {
  const ctl = deps.control;
  c.header('Cache-Control', 'no-store');
  c.header('Referrer-Policy', 'no-referrer');
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'");
  const what = readUnsubscribeToken(ctl, c.req.param('token') ?? '');
  const person = what && (await getPerson(ctl, what.personId));
  const site = what && (what.siteId === ALL_SITES ? ALL_SITES : getSite(ctl, what.siteId));
  if (!what || !site || !person || !(EMAIL_REPORT_KINDS as readonly string[]).includes(what.kind)) {
    // a person following the link reads why; a program (a mail client's one-click POST) gets JSON
    if (!/text\/html/.test(c.req.header('accept') ?? '')) {
      throw new AppError('not_found', 'this unsubscribe link is not valid');
    }
    return c.html(
      page('This link does not work', '<p>It was changed, or its site or account is gone.</p>'),
      404,
    );
  }
  // in the language the report is written in (read before a stop may remove the choice)
  const choice = emailReportChoices(ctl, person.id).get(what.siteId);
  const language = choice?.language ?? 'en';
  const words = MAIL_WORDS[language];
  const w = words.unsubscribe;
  const of = site === ALL_SITES ? words.allSites((await sitesOf(deps, person)).length) : site.domain;
  const report = w.report(what.kind, of);
  const email = person.email;
  if (stop) {
    stopEmailReport(ctl, person.id, what.siteId, what.kind);
    deps.logger.info({ site: what.siteId, kind: what.kind }, 'e-mail report stopped by its unsubscribe link');
    return c.html(
      page(w.done, `<p>${escapeHtml(w.stopped(email, report))}</p><p>${escapeHtml(w.again)}</p>`, language),
    );
  }
  return c.html(
    page(
      w.title,
      choice?.[what.kind] === true
        ? `<p>${escapeHtml(w.ask(report, email))}</p><form method="post"><button type="submit">${escapeHtml(w.button)}</button></form>`
        : `<p>${escapeHtml(w.notReceiving(email, report))}</p>`,
      language,
    ),
  );
}

const page = (title: string, body: string, language = 'en') => `<!doctype html>
<html lang="${language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)} · Footfall</title>
<style>body{font-family:system-ui,sans-serif;line-height:1.5;max-width:32rem;margin:10vh auto;padding:0 1rem;color:#1d1d1f;background:#fff}
@media (prefers-color-scheme:dark){body{color:#f2f2f7;background:#111318}}
button{font:inherit;padding:.5rem 1rem;border-radius:6px;border:1px solid #2457c5;background:#2457c5;color:#fff;cursor:pointer}</style>
</head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
