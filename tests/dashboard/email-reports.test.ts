import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/footfall.ts';
import { startMailServer, type TestMailServer } from '../support/smtp.ts';
import {
  type ApiSession,
  accessibilityProblems,
  addSite,
  createOwner,
  type Dashboard,
  OWNER,
  personContext,
  screenshot,
  signIn,
  startDashboard,
} from './harness.ts';

/**
 * E-mail reports as a person sets them up: Account, E-mail reports, tick the weekly report of a
 * site (kept: the API and a reload say so), and "send me one now", which a real SMTP server
 * receives; on a phone in dark mode, with no serious accessibility problem.
 */
describe('e-mail reports in the dashboard', () => {
  let d: Dashboard;
  let owner: ApiSession;
  let site: string;
  let mail: TestMailServer;
  beforeAll(async () => {
    mail = await startMailServer(tempDir('ff-dash-mail-'));
    d = await startDashboard({
      FOOTFALL_SMTP_URL: mail.url,
      FOOTFALL_MAIL_FROM: 'Footfall <reports@footfall.example>',
      NODE_EXTRA_CA_CERTS: mail.cert,
    });
    owner = await createOwner(d);
    site = await addSite(owner, 'shop.localhost');
  });
  afterAll(async () => {
    await d?.close();
    await mail?.close();
  });

  it('keeps a ticked report and sends one now', async () => {
    const context = await personContext(d, { width: 360, dark: true });
    const page = await context.newPage();
    await signIn(page);
    await page.goto('/account');
    const weekly = page.getByLabel('Weekly report of shop.localhost');
    await weekly.check();
    await expect
      .poll(
        async () =>
          (await owner.call<{ sites: { weekly: boolean }[] }>('GET', '/api/v1/account/email-reports'))
            .sites[0]?.weekly,
      )
      .toBe(true);
    await page.reload();
    expect(await page.getByLabel('Weekly report of shop.localhost').isChecked()).toBe(true);
    expect(await page.getByLabel('Monthly report of shop.localhost').isChecked()).toBe(false);
    // no note about a missing mail server: this one has one
    expect(await page.getByText('no e-mail set up').count()).toBe(0);

    await page.getByRole('button', { name: "Send me last week's report of shop.localhost" }).click();
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'Sent to' }).textContent())
      .toContain(`Sent to ${OWNER}`);
    expect(mail.mails).toHaveLength(1);
    const parsed = await simpleParser(mail.mails[0]!.raw);
    expect(parsed.subject).toMatch(/^shop\.localhost: 0 visitors, /);
    expect(parsed.text).toContain(`/sites/${site}?period=custom`);
    expect(await accessibilityProblems(page)).toEqual([]);
    await screenshot(page, 'email-reports-360-dark');

    // a report the mail server refused says why under its site, and when it is tried again (the
    // answer is the server's own, with a refusal put in: a real one takes the retry schedule)
    await page.route('**/api/v1/account/email-reports', async (route) => {
      const res = await route.fetch();
      const body = (await res.json()) as { sites: Record<string, unknown>[] };
      body.sites[0]!['last_failure'] = {
        kind: 'weekly',
        period: { from: '2026-11-16', to: '2026-11-22' },
        message: '451 4.3.0 mailbox temporarily unavailable',
        next_try_at: '2026-11-23T07:05:00.000Z',
      };
      await route.fulfill({ response: res, json: body });
    });
    await page.reload();
    const note = page.getByRole('note').filter({ hasText: 'was not delivered' });
    await expect.poll(() => note.textContent()).toContain('451 4.3.0 mailbox temporarily unavailable');
    expect(await note.textContent()).toContain('Footfall tries again at');
    expect(await accessibilityProblems(page)).toEqual([]);
    await screenshot(page, 'email-reports-failed-360-dark');
    await context.close();
  });

  it('shows on Health what went out and the newest report the mail server refused', async () => {
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    // the report sent now above is not a scheduled one: Health has none yet
    expect((await owner.call<{ email_reports: unknown }>('GET', '/api/v1/health')).email_reports).toBeNull();
    // the answer is the server's own, with a refusal put in (a real one waits for Monday 06:00)
    await page.route('**/api/v1/health', async (route) => {
      const res = await route.fetch();
      const body = (await res.json()) as Record<string, unknown>;
      body['status'] = 'degraded';
      body['email_reports'] = {
        sent: 3,
        retrying: 1,
        given_up: 0,
        failing: true,
        last_failure: {
          site_id: site,
          domain: 'shop.localhost',
          kind: 'weekly',
          from: '2026-11-16',
          to: '2026-11-22',
          message: '451 4.3.0 mailbox temporarily unavailable',
          next_try_at: '2026-11-23T07:05:00.000Z',
        },
      };
      await route.fulfill({ response: res, json: body });
    });
    await page.goto('/health');
    await page
      .getByRole('alert')
      .getByText(
        'E-mail reports are not going out. The mail server answered: 451 4.3.0 mailbox temporarily unavailable',
      )
      .waitFor();
    const section = page.locator('section[aria-labelledby="h-email-reports"]');
    await expect
      .poll(() => section.textContent())
      .toContain('shop.localhost, the weekly report of 2026-11-16 to 2026-11-22: 451 4.3.0');
    expect(await accessibilityProblems(page)).toEqual([]);
    await screenshot(page, 'health-email-reports-1280-light');
    await context.close();
  });
  it('offers one e-mail of all sites, first, once there are two', async () => {
    await addSite(owner, 'blog.localhost');
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    await page.goto('/account');
    const row = page.locator('.alert-destination').first();
    await expect.poll(() => row.locator('strong').textContent()).toBe('All sites (2)');
    await page.getByLabel('Weekly report of all 2 sites').check();
    await expect
      .poll(
        async () =>
          (await owner.call<{ all_sites: { weekly: boolean } }>('GET', '/api/v1/account/email-reports'))
            .all_sites.weekly,
      )
      .toBe(true);
    const before = mail.mails.length;
    await page.getByRole('button', { name: "Send me last week's report of all 2 sites" }).click();
    await expect.poll(() => mail.mails.length).toBe(before + 1);
    const parsed = await simpleParser(mail.mails.at(-1)!.raw);
    expect(parsed.subject).toMatch(/^All 2 sites: 0 visitors, /);
    expect(parsed.text).toMatch(
      /^Sites\n {2}blog\.localhost\s+0\s+no change\n {2}shop\.localhost\s+0\s+no change$/m,
    );
    expect(parsed.text).toContain('/all?period=custom');
    expect(await accessibilityProblems(page)).toEqual([]);
    await screenshot(page, 'email-reports-all-sites-1280-light');
    await context.close();
  });
});
