import { randomBytes } from 'node:crypto';
import type { AlertKind } from '@footfall/control';

/**
 * One alert, as a webhook receives it (the JSON body) and as an e-mail is written from it
 * (docs/alerts.md). `state` is `started` or `cleared` for the kinds that are a condition (tracking
 * stopped, disk filling, health), null for the ones that are an event (a busy day, someone paid, a
 * test).
 */
export interface AlertMessage {
  id: string;
  kind: AlertKind | 'test';
  state: 'started' | 'cleared' | null;
  /** when it happened, ISO 8601 */
  at: string;
  /** the site it is about; null for the instance's own (disk, health) */
  site: { id: string; domain: string } | null;
  /** one line: the e-mail's subject */
  title: string;
  /** a few sentences in plain words */
  text: string;
  /** where to look: the dashboard page it is about, when FOOTFALL_BASE_URL is known */
  url: string | null;
  /** the numbers behind it, per kind (docs/alerts.md) */
  data: Record<string, unknown>;
}

/** A new alert id: `alr_` and 20 random characters. */
export const alertId = () => `alr_${randomBytes(15).toString('base64url')}`;

export function alertText(m: AlertMessage): string {
  const lines = [m.text];
  if (m.url) lines.push('', `Open: ${m.url}`);
  lines.push(
    '',
    '--',
    "Sent by Footfall. Change which alerts this address gets in the site's settings, under Alerts.",
  );
  return lines.join('\n');
}

/** Text made safe inside HTML text and attribute values. */
export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function alertHtml(m: AlertMessage): string {
  const link = m.url
    ? `<p><a href="${escapeHtml(m.url)}" style="color:#2457c5">Open in Footfall</a></p>`
    : '';
  return `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1d1d1f">
<h1 style="font-size:18px;margin:0 0 12px">${escapeHtml(m.title)}</h1>
${m.text
  .split('\n')
  .map((p) => `<p style="margin:0 0 8px">${escapeHtml(p)}</p>`)
  .join('\n')}
${link}
<p style="color:#6e6e73;font-size:12px;margin-top:24px">Sent by Footfall. Change which alerts this address gets in the site's settings, under Alerts.</p>
</body></html>`;
}
