import { useState } from 'preact/hooks';
import { urlFor } from '../api/client.ts';
import { t } from '../i18n/report.ts';
import { inSentence } from './panels.ts';

const KINDS = [
  ['visitors', t('visitors')],
  ['visits', t('visits')],
  ['pageviews', t('pageviews')],
] as const;
const PERIODS = [
  ['24h', t('hours24')],
  ['7d', t('days7')],
  ['30d', t('days30')],
] as const;

/**
 * "Card": a picture of one number of the site to post elsewhere (1200 × 630 PNG, drawn by the
 * server): the number, the window, light or dark; a preview and a download link.
 */
export function ShareCard({ site, domain }: { site: string; domain: string }) {
  const [open, setOpen] = useState(false);
  const [kind, setKind] = useState<(typeof KINDS)[number][0]>('visitors');
  const [period, setPeriod] = useState<(typeof PERIODS)[number][0]>('7d');
  const [theme, setTheme] = useState<'light' | 'dark'>('light');
  const src = urlFor('/api/v1/sites/{site}/card', { path: { site }, query: { kind, period, theme } });
  return (
    <details class="share-card" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary class="button secondary">{t('card')}</summary>
      {open && (
        <div class="share-card-body card stack">
          <div class="row">
            <label>
              {t('number')}{' '}
              <select value={kind} onChange={(e) => setKind(e.currentTarget.value as typeof kind)}>
                {KINDS.map(([k, words]) => (
                  <option key={k} value={k}>
                    {words}
                  </option>
                ))}
              </select>
            </label>
            <label>
              {t('over')}{' '}
              <select value={period} onChange={(e) => setPeriod(e.currentTarget.value as typeof period)}>
                {PERIODS.map(([p, words]) => (
                  <option key={p} value={p}>
                    {words}
                  </option>
                ))}
              </select>
            </label>
            <label>
              {t('look')}{' '}
              <select value={theme} onChange={(e) => setTheme(e.currentTarget.value as typeof theme)}>
                <option value="light">{t('light')}</option>
                <option value="dark">{t('dark')}</option>
              </select>
            </label>
          </div>
          <img
            class="share-card-preview"
            src={src}
            width={600}
            height={315}
            alt={t('cardAlt', {
              domain,
              kind: inSentence(KINDS.find(([k]) => k === kind)![1]),
              period: PERIODS.find(([p]) => p === period)![1],
            })}
          />
          <a class="button primary" href={src} download={`${domain}-${kind}-${period}.png`}>
            {t('downloadPng')}
          </a>
        </div>
      )}
    </details>
  );
}
