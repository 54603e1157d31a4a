import { api, type Schema, unwrap } from '../api/client.ts';
import { compact, ErrorNote, Link, Spinner } from '../components/ui.tsx';
import { displayValue } from './panels.ts';
import { linkTo, periodQuery, type Scope } from './scope.ts';
import { withFilter } from './view.ts';
import { useWhenSeen } from './when-seen.ts';

type Moment = Schema<'Moments'>['moments'][number];
type Bucket = Schema<'Moments'>['buckets'][number];

/** When a bucket was, as people say it: `Tue 4 Mar` or `Tue 4 Mar, 14:00`. */
function when(b: Pick<Bucket, 'bucket'>, hourly: boolean): string {
  const day = new Date(`${b.bucket.slice(0, 10)}T00:00:00Z`).toLocaleDateString(undefined, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    timeZone: 'UTC',
  });
  return hourly ? `${day}, ${b.bucket.slice(11, 16)}` : day;
}

/** A moment in words, with the filter it opens when it names a value. */
function words(m: Moment, hourly: boolean): { text: string; filter?: [string, string] } {
  const unit = hourly ? 'hour' : 'day';
  const visitors = `${compact(m.count)} ${m.count === 1 ? 'visitor' : 'visitors'}`;
  const visits = `${compact(m.count)} ${m.count === 1 ? 'visit' : 'visits'}`;
  switch (m.kind) {
    case 'peak':
      return { text: `The busiest ${unit}: ${visitors}` };
    case 'spike':
      return { text: `A spike: ${visitors}, at least twice the usual` };
    case 'first_referrer':
      return { text: `First visits ever from ${m.value} (${visits})`, filter: ['referrer', m.value ?? ''] };
    case 'first_country':
      return {
        text: `First visitor ever from ${displayValue('country', m.value)}`,
        filter: ['country', m.value ?? ''],
      };
    case 'first_campaign':
      return { text: `Campaign “${m.value}” began (${visits})`, filter: ['campaign', m.value ?? ''] };
  }
}

/**
 * "What happened": the period replayed as a timeline (`moments`): its busiest day or hour, spikes,
 * and the first visits ever from a referrer, a country or a campaign, each with where most visits
 * of that bucket came from and went to. Aggregates only. Hour by hour for a single day.
 */
export function Moments({ scope }: { scope: Scope }) {
  const hourly = scope.range.from === scope.range.to;
  const [ref, data] = useWhenSeen(scope, (signal) =>
    unwrap(
      api.GET('/api/v1/sites/{site}/moments', {
        signal,
        params: {
          path: { site: scope.site.id },
          query: { ...periodQuery(scope), bucket: hourly ? 'hour' : 'day' },
        },
      }),
    ),
  );
  const buckets = new Map(data.data?.buckets.map((b) => [b.bucket, b]));
  return (
    <section class="panel card moments" ref={ref} aria-labelledby="moments-title">
      <div class="panel-head">
        <h2 id="moments-title">What happened</h2>
      </div>
      <ErrorNote error={data.error} />
      {!data.data && !data.error && <Spinner />}
      {data.data && data.data.moments.length === 0 && (
        <p class="empty muted">Nothing stood out in this period.</p>
      )}
      {data.data && data.data.moments.length > 0 && (
        <ol class="moment-list">
          {data.data.moments.map((m) => {
            const w = words(m, hourly);
            const b = buckets.get(m.bucket);
            const via = b?.top.channel?.value;
            const to = b?.top.page?.value;
            return (
              <li key={`${m.bucket}-${m.kind}-${m.value ?? ''}`} class={`moment-item moment-${m.kind}`}>
                <time dateTime={m.start}>{when(m, hourly)}</time>
                <div>
                  <strong>
                    {w.filter ? (
                      <Link href={linkTo(scope, (v) => withFilter(v, w.filter![0], w.filter![1]))}>
                        {w.text}
                      </Link>
                    ) : (
                      w.text
                    )}
                  </strong>
                  {(via || to) && (
                    <div class="muted small">
                      {hourly ? 'That hour' : 'That day'}, most came {via && <>from {via}</>}
                      {via && to && ' and '}
                      {to && (
                        <>
                          began on <code>{to}</code>
                        </>
                      )}
                    </div>
                  )}
                </div>
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
