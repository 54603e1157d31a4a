import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../api-docs/documented-app.ts';
import { ApiCallError, type ApiSession, addSite, createOwner, OWNER } from '../dashboard/harness.ts';
import { startFootfall, tempDir } from '../support/footfall.ts';
import { startMailServer, type TestMailServer } from '../support/smtp.ts';

/**
 * E-mail reports through the real `footfall start` and a real SMTP server (STARTTLS): a person's
 * choices, "send me one now" with its text and HTML parts and the chart attached inline as a PNG,
 * and the unsubscribe link followed without signing in (opening it changes nothing; its button,
 * and a mail program's one-click POST, stop the report). When reports are due and that they go
 * once per period is tested with a clock of the test's (apps/query/src/email-reports).
 */
const root = tempDir('ff-email-reports-');
let footfall: Awaited<ReturnType<typeof startFootfall>>;
let owner: ApiSession;
let site: string;
let mail: TestMailServer;
const BASE = '/api/v1/account/email-reports';

beforeAll(async () => {
  mail = await startMailServer(root);
  footfall = await startFootfall({
    FOOTFALL_DATA_DIR: join(root, 'data'),
    // the mail server alone: the sender is the documented default (docs/configuration.md)
    FOOTFALL_SMTP_URL: mail.url,
    FOOTFALL_RATES_URL: 'http://127.0.0.1:9/',
    NODE_EXTRA_CA_CERTS: mail.cert,
  });
  const [setupLink] = await footfall.waitForOutput(/http:\/\/\S+\/setup\?token=[\w-]+/);
  owner = await createOwner({ footfall, setupLink: setupLink! });
  site = await addSite(owner, 'shop.example');
}, 60_000);

afterAll(async () => {
  await footfall?.stop();
  await mail?.close();
});

async function refusal(call: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiCallError) return { status: error.status, message: error.apiMessage };
    throw error;
  }
  throw new Error('the call was not refused');
}

describe('e-mail reports', () => {
  it('keeps each person’s weekly and monthly choice per site, refusing what is wrong', async () => {
    const contract = await loadContract();
    const list = await owner.call<{ mail_ready: boolean; sites: unknown[] }>('GET', BASE);
    expect(contract.validate('#/components/schemas/EmailReportList', list)).toEqual([]);
    expect(list).toEqual({
      mail_ready: true,
      sites: [
        { site, domain: 'shop.example', weekly: false, monthly: false, language: 'en', last_failure: null },
      ],
      // one e-mail of every site the person may read: chosen apart from each site's own
      all_sites: { site: 'all', sites: 1, weekly: false, monthly: false, language: 'en', last_failure: null },
    });
    const chosen = await owner.call('PUT', `${BASE}/${site}`, { weekly: true, monthly: false });
    expect(chosen).toEqual({
      site,
      domain: 'shop.example',
      weekly: true,
      monthly: false,
      language: 'en',
      last_failure: null,
    });
    expect((await owner.call<{ sites: unknown[] }>('GET', BASE)).sites).toEqual([chosen]);
    expect(
      await refusal(owner.call('PUT', `${BASE}/${site}`, { weekly: 'yes', monthly: false })),
    ).toMatchObject({
      status: 400,
    });
    expect(
      await refusal(owner.call('PUT', `${BASE}/nosuchsite`, { weekly: true, monthly: true })),
    ).toMatchObject({
      status: 404,
    });
    expect(await refusal(owner.call('POST', `${BASE}/${site}/send`, { period: 'year' }))).toMatchObject({
      status: 400,
    });
  });

  it('sends one now: text and HTML, the chart inline, the dashboard and unsubscribe links', async () => {
    const answer = await owner.call<{ sent_to: string; period: { from: string; to: string } }>(
      'POST',
      `${BASE}/${site}/send`,
      { period: 'week' },
    );
    expect(answer.sent_to).toBe(OWNER);
    expect(new Date(`${answer.period.from}T00:00:00Z`).getUTCDay()).toBe(1); // a Monday
    expect(mail.mails).toHaveLength(1);
    expect(mail.mails[0]).toMatchObject({ secure: true, user: 'alerts' });
    const parsed = await simpleParser(mail.mails[0]!.raw);
    expect(parsed.to && 'text' in parsed.to ? parsed.to.text : '').toBe(OWNER);
    // no FOOTFALL_MAIL_FROM, and the SMTP user is no address: footfall@ the mail server's host
    expect(parsed.from?.value).toEqual([{ name: 'Footfall', address: 'footfall@127.0.0.1' }]);
    expect(parsed.subject).toMatch(/^shop\.example: 0 visitors, \d+/);
    expect(parsed.text).toContain('Your weekly report of shop.example');
    expect(parsed.text).toMatch(/^Visitors\s+0\s+no change$/m);
    // the HTML shows the attached chart (mailparser turns its cid: into the image's data)
    // (quoted-printable: its soft line breaks joined first)
    expect(mail.mails[0]!.raw.replace(/=\r\n/g, '')).toContain('src=3D"cid:chart@footfall"');
    expect(parsed.html).toContain('alt="Visitors per day,');
    const png = parsed.attachments.find((a) => a.cid === 'chart@footfall');
    expect(png?.contentType).toBe('image/png');
    expect(png?.content.subarray(1, 4).toString()).toBe('PNG');
    const link = /(http:\/\/\S+\/unsubscribe\/\S+)/.exec(parsed.text ?? '')?.[1];
    expect(link).toBeDefined();
    const raw = mail.mails[0]!.raw.replace(/\r\n\s+/g, ' ');
    expect(raw).toContain(`List-Unsubscribe: <${link}>`);
    expect(raw).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(parsed.text).toContain(`${footfall.url}/sites/${site}?period=custom&from=${answer.period.from}`);

    // opening the link (as a mail scanner would) changes nothing; its button stops the report
    const page = await fetch(link!, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Stop sending the weekly report of shop.example to owner@example.com?');
    expect(html).toContain('<form method="post">');
    expect((await owner.call<{ sites: { weekly: boolean }[] }>('GET', BASE)).sites[0]?.weekly).toBe(true);
    // the mail program's one-click POST (RFC 8058), without a session
    const stopped = await fetch(link!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(stopped.status).toBe(200);
    expect(await stopped.text()).toContain('no longer receives the weekly report of shop.example');
    expect((await owner.call<{ sites: unknown[] }>('GET', BASE)).sites).toEqual([
      { site, domain: 'shop.example', weekly: false, monthly: false, language: 'en', last_failure: null },
    ]);
    // a changed token is refused
    const forged = await fetch(
      link!.replace(/weekly\.[0-9a-f]+$/, 'monthly.0123456789abcdef0123456789abcdef'),
    );
    expect(forged.status).toBe(404);
  });

  it("writes the report and its unsubscribe page in the person's language", async () => {
    const chosen = await owner.call('PUT', `${BASE}/${site}`, {
      weekly: true,
      monthly: false,
      language: 'fr',
    });
    expect(chosen).toMatchObject({ weekly: true, language: 'fr' });
    expect(
      await refusal(owner.call('PUT', `${BASE}/${site}`, { weekly: true, monthly: false, language: 'xx' })),
    ).toMatchObject({ status: 400 });
    const before = mail.mails.length;
    await owner.call('POST', `${BASE}/${site}/send`, { period: 'week' });
    const parsed = await simpleParser(mail.mails[before]!.raw);
    expect(parsed.subject).toMatch(/^shop\.example : 0 visiteurs, \d+/);
    expect(parsed.text).toContain('Votre rapport hebdomadaire de shop.example :');
    expect(parsed.text).toMatch(/^Visiteurs\s+0\s+inchangé$/m);
    expect(parsed.html).toContain('<html lang="fr">');
    const link = /(http:\/\/\S+\/unsubscribe\/\S+)/.exec(parsed.text ?? '')?.[1];
    const page = await (await fetch(link!, { headers: { accept: 'text/html' } })).text();
    expect(page).toContain('<html lang="fr">');
    expect(page).toContain('Ne plus envoyer le rapport hebdomadaire de shop.example à owner@example.com ?');
    expect(page).toContain('Se désabonner</button>');
    // a send asking for another language writes that one, and keeps the choice as it was
    await owner.call('POST', `${BASE}/${site}/send`, { period: 'month', language: 'es' });
    expect((await simpleParser(mail.mails[before + 1]!.raw)).subject).toMatch(
      /^shop\.example: 0 visitantes, /,
    );
    expect((await owner.call<{ sites: { language: string }[] }>('GET', BASE)).sites[0]?.language).toBe('fr');
  });
});
