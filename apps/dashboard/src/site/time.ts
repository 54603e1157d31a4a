import { dateFormat } from '../i18n/format.ts';
import { t } from '../i18n/report.ts';

const dayMonth = dateFormat({ day: 'numeric', month: 'short' });

/** `just now`, `45 s ago`, `3 min ago`, `2 h ago`, or the date. */
export function ago(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 5) return t('justNow');
  if (s < 60) return t('secondsAgo', { s });
  if (s < 3600) return t('minutesAgo', { m: Math.floor(s / 60) });
  if (s < 86_400) return t('hoursAgo', { h: Math.floor(s / 3600) });
  return dayMonth.format(new Date(iso));
}

/** The time of day of a moment in the site's zone: `14:05:09`. */
export function clock(iso: string, timeZone: string): string {
  return dateFormat({
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).format(Date.parse(iso));
}
