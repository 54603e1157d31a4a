import { api, type Schema, unwrap } from '../api/client.ts';
import { Modal } from '../components/Modal.tsx';
import { duration, ErrorNote, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { displayValue } from './panels.ts';
import { clock } from './time.ts';

function place(v: Schema<'JourneyVisit'>): string {
  return [v.city, v.region, v.country ? displayValue('country', v.country) : null].filter(Boolean).join(', ');
}

function what(e: Schema<'LiveEvent'>): string {
  if (e.kind === 'pv') return e.path;
  if (e.kind === 'ev') return `${e.name ?? 'event'} on ${e.path}`;
  if (e.kind === 'en')
    return `left ${e.path}${e.engaged_ms ? ` after ${duration(e.engaged_ms / 1000)}` : ''}`;
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
    <Modal title="A visitor's journey" onClose={props.onClose} wide>
      <ErrorNote error={data.error} />
      {!data.data && !data.error && <Spinner />}
      {data.data?.visits.length === 0 && <p class="muted">No visit of this visitor is stored any more.</p>}
      {data.data?.visits.map((v) => (
        <section
          class="journey-visit"
          key={v.visit}
          aria-label={`Visit of ${new Date(v.started).toLocaleString('en-GB', { timeZone: zone })}`}
        >
          <h3>
            {new Date(v.started).toLocaleString('en-GB', {
              timeZone: zone,
              dateStyle: 'medium',
              timeStyle: 'short',
            })}
            <span class="muted">
              {' '}
              · {duration(v.duration_seconds)} · {v.pageviews} pageviews
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
