import {
  ALL_SITES,
  createPerson,
  createSite,
  emailReportFailure,
  emailReportHealth,
  emailReportSends,
  readUnsubscribeToken,
  setEmailReportChoice,
} from '@footfall/control';
import { createConnection, parseCustomEvent, receiveWebhook, webhookTarget } from '@footfall/payments';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Mail } from '../alerts/send.ts';
import { alertsDeps, clock, control, load, site, useAlertsHarness } from '../alerts/test-support.ts';
import { CardPool } from '../cards/pool.ts';
import { ev } from '../engine/test-fixtures.ts';
import { behindmost } from './periods.ts';
import { EmailReports } from './run.ts';

/**
 * E-mail reports with the real report, the real card pool and a clock of the test's: queued once
 * per period (also by a second instance over the same app.db, as after a restart), retried when
 * the mail server refuses, dropped when no longer wanted. The mail server is a recorder here;
 * tests/alerts/email-reports.test.ts sends through a real one.
 */
useAlertsHarness();
let cards: CardPool;
beforeAll(() => {
  cards = new CardPool();
});
afterAll(() => cards.close());

const sent: Mail[] = [];
let refuse = 0;
const sender = {
  mailReady: true,
  async mail(m: Mail) {
    if (refuse > 0) {
      refuse -= 1;
      return 'the mail server answered 451';
    }
    sent.push(m);
    return null;
  },
};

async function setUp() {
  sent.length = 0;
  refuse = 0;
  const person = await createPerson(control.ctl, {
    email: 'owner@example.com',
    role: 'owner',
    password: 'correct horse battery',
  });
  setEmailReportChoice(
    control.ctl,
    person.id,
    site.id,
    { weekly: true, monthly: false },
    'http://footfall.test',
  );
  // the week of 16–22 November 2026: three visitors, one of them twice; and one the week before
  await load([
    ev('2026-11-17T10:00:00Z', {
      site: site.id,
      visitor: 'a',
      path: '/',
      referrerHost: 'news.example',
      channel: 'Referral',
      country: 'DE',
    }),
    ev('2026-11-17T10:01:00Z', { site: site.id, visitor: 'a', path: '/pricing' }),
    ev('2026-11-19T10:00:00Z', { site: site.id, visitor: 'b', path: '/', country: 'FR' }),
    ev('2026-11-21T10:00:00Z', { site: site.id, visitor: 'c', path: '/docs', country: 'DE' }),
    ev('2026-11-21T20:00:00Z', { site: site.id, visitor: 'a', path: '/' }),
    ev('2026-11-12T10:00:00Z', { site: site.id, visitor: 'd', path: '/' }),
  ]);
  const deps = { ...alertsDeps({}), cards };
  return { person, reports: new EmailReports(deps, sender), deps };
}

describe('e-mail reports', () => {
  it('send the week before on Monday from 06:00 in the site’s zone, once, with its numbers and chart', async () => {
    const { person, reports, deps } = await setUp();
    clock.set(Date.parse('2026-11-23T05:59:00Z')); // Monday 05:59 UTC
    await reports.tick();
    expect(sent).toHaveLength(0);
    clock.set(Date.parse('2026-11-23T06:00:00Z'));
    await reports.tick();
    expect(sent).toHaveLength(1);
    const mail = sent[0]!;
    expect(mail.to).toBe('owner@example.com');
    // Intl's date range in British English: thin spaces around the dash
    expect(mail.subject).toBe('example.com: 3 visitors, 16\u2009–\u200922 Nov 2026');
    expect(mail.text).toMatch(/^Visitors\s+3\s+\+200%$/m);
    expect(mail.text).toMatch(/^Visits\s+4\s+\+300%$/m);
    expect(mail.text).toContain('Top sources\n  1. Direct / none  3\n  2. news.example  1');
    expect(mail.text).toContain('Top countries\n  1. Germany  2\n  2. France  1\n  3. Unknown  1');
    // five pageviews in four visits, three of them one page; a's first visit lasted a minute
    expect(mail.text).toMatch(/^Pageviews\s+5\s+\+400%$/m);
    expect(mail.text).toMatch(/^Bounce rate\s+75%\s+−25 pts$/m);
    expect(mail.text).toMatch(/^Visit duration\s+15s\s+new$/m);
    expect(mail.text).toContain('Top pages\n  1. /  2\n  2. /docs  1\n  3. /pricing  1');
    expect(mail.text).not.toContain('Revenue');
    // the chart, drawn in the card pool, inline
    expect(mail.html).toContain('src="cid:chart@footfall"');
    const png = mail.attachments?.[0];
    expect(png?.contentType).toBe('image/png');
    expect(png?.content.subarray(1, 4).toString()).toBe('PNG');
    // the unsubscribe link, signed, in the text, the HTML and the List-Unsubscribe header
    const link = /http:\/\/footfall\.test\/unsubscribe\/(\S+)/.exec(mail.text)?.[1];
    expect(readUnsubscribeToken(control.ctl, link ?? '')).toEqual({
      personId: person.id,
      siteId: site.id,
      kind: 'weekly',
    });
    expect(mail.headers?.['List-Unsubscribe']).toBe(`<http://footfall.test/unsubscribe/${link}>`);
    expect(mail.headers?.['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    expect(mail.html).toContain(
      `href="http://footfall.test/sites/${site.id}?period=custom&amp;from=2026-11-16&amp;to=2026-11-22"`,
    );
    // later that day, the next day, and after a restart (a new instance): never twice
    clock.set(Date.parse('2026-11-24T12:00:00Z'));
    await reports.tick();
    await new EmailReports(deps, sender).tick();
    expect(sent).toHaveLength(1);
    expect(emailReportSends(control.ctl)).toMatchObject([
      { kind: 'weekly', from: '2026-11-16', state: 'sent', attempts: 1 },
    ]);
  });

  it('try a refused report again on the alerts’ schedule, and drop one no longer wanted', async () => {
    const { person, reports } = await setUp();
    refuse = 1;
    clock.set(Date.parse('2026-11-23T07:00:00Z'));
    await reports.tick();
    expect(sent).toHaveLength(0);
    expect(emailReportSends(control.ctl)).toMatchObject([{ state: 'pending', attempts: 1 }]);
    // the person's settings say why, and when it is tried again
    expect(emailReportFailure(control.ctl, person.id, site.id)).toEqual({
      kind: 'weekly',
      from: '2026-11-16',
      to: '2026-11-22',
      message: 'the mail server answered 451',
      nextTryAt: Date.parse('2026-11-23T07:00:30Z'),
    });
    // Health says so too, without whose report it was, on the sites its reader may see
    expect(emailReportHealth(control.ctl, () => true)).toEqual({
      sent: 0,
      retrying: 1,
      givenUp: 0,
      failing: true,
      lastFailure: {
        siteId: site.id,
        kind: 'weekly',
        from: '2026-11-16',
        to: '2026-11-22',
        message: 'the mail server answered 451',
        nextTryAt: Date.parse('2026-11-23T07:00:30Z'),
      },
    });
    expect(emailReportHealth(control.ctl, () => false)).toBeNull();
    clock.advance(29_000);
    await reports.tick();
    expect(sent).toHaveLength(0);
    clock.advance(1_000);
    await reports.tick();
    expect(sent).toHaveLength(1);
    expect(emailReportFailure(control.ctl, person.id, site.id)).toBeNull();
    expect(emailReportHealth(control.ctl, () => true)).toMatchObject({
      sent: 1,
      retrying: 0,
      failing: false,
    });
    // the week after: unsubscribed between queueing and sending, nothing goes
    clock.set(Date.parse('2026-11-30T07:00:00Z'));
    await reports.queueDue();
    setEmailReportChoice(control.ctl, person.id, site.id, { weekly: false, monthly: true });
    await reports.drain();
    expect(sent).toHaveLength(1);
    expect(emailReportSends(control.ctl).map((r) => [r.from, r.state])).toEqual([
      ['2026-11-16', 'sent'],
      ['2026-11-23', 'dropped'],
    ]);
    // a month's report on the 1st
    clock.set(Date.parse('2026-12-01T07:00:00Z'));
    await reports.tick();
    expect(sent.at(-1)?.subject).toBe('example.com: 4 visitors, November 2026');
    expect(sent.at(-1)?.text).toContain('Stop these monthly reports of example.com');
    // /metrics counts them with the alerts (kind email_report)
    expect(reports.counts).toEqual({ sent: 2, attemptsFailed: 1, givenUp: 0 });
  });

  it('say the revenue the visits earned, and its change, on a site with a payment connection', async () => {
    const { reports } = await setUp();
    const connection = createConnection(control.ctl, { siteId: site.id, provider: 'custom' }).connection;
    const target = webhookTarget(control.ctl, connection.id)!;
    const pay = (id: string, at: string, amount: number, visitor: string) => {
      const raw = {
        id: `evt-${id}`,
        type: 'payment',
        at,
        payment: { id, amount, currency: site.currency, visitor },
      };
      receiveWebhook(control.ctl, target, parseCustomEvent(raw), Buffer.from(JSON.stringify(raw)));
    };
    // a's referral visit earned two sales this week; d's visit one the week before
    pay('pay-1', '2026-11-17T10:05:00Z', 4900, 'a');
    pay('pay-2', '2026-11-21T20:05:00Z', 2500, 'a');
    pay('pay-3', '2026-11-12T10:05:00Z', 3700, 'd');
    clock.set(Date.parse('2026-11-23T06:00:00Z'));
    await reports.tick();
    expect(sent).toHaveLength(1);
    const money = (minor: number) =>
      new Intl.NumberFormat('en-GB', { style: 'currency', currency: site.currency }).format(minor / 100);
    expect(sent[0]!.text).toMatch(new RegExp(`^Revenue\\s+${literal(money(7400))}\\s+\\+100%$`, 'm'));
    expect(sent[0]!.html).toContain(money(7400));
  });

  it('send one now: the last finished week, not counted as its scheduled report', async () => {
    const { person, reports } = await setUp();
    clock.set(Date.parse('2026-11-25T12:00:00Z')); // a Wednesday
    const now = await reports.sendNow(person, site, 'weekly', 'http://footfall.test', 'de');
    expect(now).toEqual({ to: 'owner@example.com', period: { from: '2026-11-16', to: '2026-11-22' } });
    expect(sent).toHaveLength(1);
    // in the person's language
    expect(sent[0]?.subject).toMatch(/^example\.com: \d+ Besucher, 16\.–22\. Nov\. 2026$/);
    expect(sent[0]?.text).toContain('Wochenberichte für example.com abbestellen');
    expect(emailReportSends(control.ctl)).toEqual([]);
  });

  it('send one e-mail of all sites once the week is over in the zone furthest behind, each site with its change', async () => {
    const { person, reports } = await setUp();
    const shop = await createSite(control.ctl, { domain: 'shop.example', timezone: 'America/New_York' });
    // one visitor in New York's week (Sunday 22 Nov, 23:30 there: Monday 04:30 UTC); none before
    await load([ev('2026-11-23T04:30:00Z', { site: shop.id, visitor: 'ny', path: '/cart', country: 'US' })]);
    setEmailReportChoice(control.ctl, person.id, site.id, { weekly: false, monthly: false });
    setEmailReportChoice(
      control.ctl,
      person.id,
      ALL_SITES,
      { weekly: true, monthly: false },
      'http://footfall.test',
    );
    // Monday 06:00 in UTC, but 01:00 in New York: not yet
    clock.set(Date.parse('2026-11-23T06:00:00Z'));
    await reports.tick();
    expect(sent).toHaveLength(0);
    clock.set(Date.parse('2026-11-23T11:00:00Z')); // 06:00 in New York
    await reports.tick();
    expect(sent).toHaveLength(1);
    const mail = sent[0]!;
    expect(mail.subject).toBe('All 2 sites: 4 visitors, 16\u2009–\u200922 Nov 2026');
    expect(mail.text).toMatch(/^Your weekly report of all 2 sites: /);
    // the sites' numbers added up (3 + 1 visitors against 1 the week before), then each site
    expect(mail.text).toMatch(/^Visitors\s+4\s+\+300%$/m);
    expect(mail.text).toMatch(/^Sites\n {2}example\.com\s+3\s+\+200%\n {2}shop\.example\s+1\s+new$/m);
    // pages by site and path; countries added across sites
    expect(mail.text).toContain('Top pages\n  1. example.com/  2\n  2. shop.example/cart  1');
    expect(mail.text).toContain('Top countries\n  1. Germany  2');
    expect(mail.html).toContain(
      'href="http://footfall.test/all?period=custom&amp;from=2026-11-16&amp;to=2026-11-22"',
    );
    const link = /http:\/\/footfall\.test\/unsubscribe\/(\S+)/.exec(mail.text)?.[1];
    expect(readUnsubscribeToken(control.ctl, link ?? '')).toEqual({
      personId: person.id,
      siteId: ALL_SITES,
      kind: 'weekly',
    });
    expect(mail.headers?.['X-Footfall-Report']).toBe('weekly all 2026-11-16');
    // never twice, and kept apart from the site's own reports
    clock.set(Date.parse('2026-11-24T10:00:00Z'));
    await reports.tick();
    await new EmailReports({ ...alertsDeps({}), cards }, sender).tick();
    expect(sent).toHaveLength(1);
    expect(emailReportSends(control.ctl)).toMatchObject([
      { siteId: ALL_SITES, kind: 'weekly', from: '2026-11-16', state: 'sent' },
    ]);
    // "send me one now" of all sites, on Wednesday
    clock.set(Date.parse('2026-11-25T12:00:00Z'));
    const now = await reports.sendNow(person, { all: [site, shop] }, 'weekly', 'http://footfall.test', 'fr');
    expect(now.period).toEqual({ from: '2026-11-16', to: '2026-11-22' });
    expect(sent[1]?.subject).toMatch(/^Vos 2 sites : 4 visiteurs, /);
  });
});

describe('the zone furthest behind', () => {
  it('is the one whose local time is the earliest', () => {
    const at = Date.parse('2026-11-23T06:00:00Z');
    expect(behindmost(['Europe/Berlin', 'America/New_York', 'UTC'], at)).toBe('America/New_York');
    expect(behindmost(['Pacific/Kiritimati', 'Pacific/Pago_Pago'], at)).toBe('Pacific/Pago_Pago');
    expect(behindmost(['Asia/Kolkata', 'Asia/Kathmandu'], at)).toBe('Asia/Kolkata');
  });
});

/** A text for a RegExp that matches it literally. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
