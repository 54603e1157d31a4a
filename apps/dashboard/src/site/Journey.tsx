import { api, type Schema, unwrap } from '../api/client.ts';
import { Modal } from '../components/Modal.tsx';
import { duration, ErrorNote, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { formatDateTime } from '../i18n/format.ts';
import { locale } from '../i18n/language.ts';
import { t } from '../i18n/report.ts';
import { displayValue } from './panels.ts';
import { clock } from './time.ts';

function place(v: Schema<'JourneyVisit'>): string {
  return [v.city, v.region, v.country ? displayValue('country', v.country) : null].filter(Boolean).join(', ');
}

function what(e: Schema<'LiveEvent'>): string {
  if (e.kind === 'pv') return e.path;
  if (e.kind === 'ev') return t('eventOn', { name: e.name ?? t('anEvent'), path: e.path });
  if (e.kind === 'en')
    return e.engaged_ms
      ? t('leftAfter', { path: e.path, duration: duration(e.engaged_ms / 1000) })
      : t('left', { path: e.path });
  return `${e.kind} ${e.path}`;
}

/** One visitor's visits of the last days, each with what they did, in order. */
export function Journey(props: { site: Schema<'Site'>; visitor: string; onClose: () => void }) {
  const data = useLoad(
    (signal) =>
      unwrap(
        api.GET('/api/v1/sites/{site}/journey/{visitor}', {
          signal,
          params: { path: { site: props.site.id, visitor: props.visitor } },
        }),
      ),
    [props.site.id, props.visitor],
  );
  const zone = props.site.timezone;
  return (
    <Modal title={t('journeyTitle')} onClose={props.onClose} wide>
      <ErrorNote error={data.error} />
      {!data.data && !data.error && <Spinner />}
      {data.data?.visits.length === 0 && <p class="muted">{t('noVisitStored')}</p>}
      {data.data?.visits.map((v) => (
        <section
          class="journey-visit"
          key={v.visit}
          aria-label={t('visitOf', { when: new Date(v.started).toLocaleString(locale, { timeZone: zone }) })}
        >
          <h3>
            {formatDateTime(v.started, zone)}
            <span class="muted">
              {' '}
              · {duration(v.duration_seconds)} · {t('pageviewCount', { count: v.pageviews })}
            </span>
          </h3>
          <p class="muted">
            {[v.channel, v.referrer, place(v), [v.device, v.browser, v.os].filter(Boolean).join(' · ')]
              .filter(Boolean)
              .join(' — ')}
          </p>
          <ol class="journey-events">
            {v.events.map((e) => (
              <li key={e.id}>
                <time dateTime={e.at}>{clock(e.at, zone)}</time> <span>{what(e)}</span>
              </li>
            ))}
          </ol>
        </section>
      ))}
    </Modal>
  );
}
