import type { Schema } from '../api/client.ts';
import { t } from '../i18n/report.ts';
import { displayValue } from './panels.ts';
import { ago } from './time.ts';

/** A pageview or custom event as the feed shows it (from the live stream or the recent feed). */
export type Item = Pick<
  Schema<'LiveVisit'>,
  'at' | 'kind' | 'path' | 'name' | 'channel' | 'referrer' | 'country' | 'device' | 'browser'
>;

/** Pageviews and events as they happen, newest first. */
export function Feed(props: { items: Item[] }) {
  if (props.items.length === 0) return <p class="empty muted">{t('noPageviews')}</p>;
  return (
    <ol class="feed" aria-label={t('feedLabel')}>
      {props.items.map((v, i) => (
        <li key={`${v.at}${v.path}${i}`}>
          <time dateTime={v.at}>{ago(v.at)}</time>
          <span class="feed-what">
            {v.kind === 'ev' ? t('eventOn', { name: v.name ?? t('event'), path: v.path }) : v.path}
          </span>
          <span class="muted">
            {[
              v.referrer ?? v.channel,
              v.country ? displayValue('country', v.country) : null,
              v.browser ?? v.device,
            ]
              .filter(Boolean)
              .join(' · ')}
          </span>
        </li>
      ))}
    </ol>
  );
}
