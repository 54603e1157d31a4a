import { api, type Schema, unwrap } from '../api/client.ts';
import { compact, ErrorNote, Link, Spinner } from '../components/ui.tsx';
import { dateFormat } from '../i18n/format.ts';
import { t } from '../i18n/panels.ts';
import { displayValue } from './panels.ts';
import { linkTo, periodQuery, type Scope } from './scope.ts';
import { withFilter } from './view.ts';
import { useWhenSeen } from './when-seen.ts';

type Moment = Schema<'Moments'>['moments'][number];
type Bucket = Schema<'Moments'>['buckets'][number];

const dayFormat = dateFormat({ weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' });
const hourFormat = dateFormat({
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  hour: '2-digit',
  minute: '2-digit',
  timeZone: 'UTC',
});

/** When a bucket was, as people say it: `Tue 4 Mar` or `Tue 4 Mar, 14:00`. */
function when(b: Pick<Bucket, 'bucket'>, hourly: boolean): string {
  const day = b.bucket.slice(0, 10);
  const time = b.bucket.slice(11, 16);
  return hourly && time
    ? hourFormat.format(new Date(`${day}T${time}:00Z`))
    : dayFormat.format(new Date(`${day}T00:00:00Z`));
}

/** Where most visits of the moment's day or hour came from and began: the sentence for what is known. */
const CAME = {
  day: { both: 'dayFromTo', from: 'dayFrom', to: 'dayTo' },
  hour: { both: 'hourFromTo', from: 'hourFrom', to: 'hourTo' },
} as const;

/** A moment in words, with the filter it opens when it names a value. */
function words(m: Moment, hourly: boolean): { text: string; filter?: [string, string] } {
  const count = { count: m.count, n: compact(m.count) };
  switch (m.kind) {
    case 'peak':
      return { text: t(hourly ? 'busiestHour' : 'busiestDay', count) };
    case 'spike':
      return { text: t('spike', count) };
    case 'first_referrer':
      return {
        text: t('firstFromReferrer', { ...count, referrer: `${m.value}` }),
        filter: ['referrer', m.value ?? ''],
      };
    case 'first_country':
      return {
        text: t('firstFromCountry', { country: displayValue('country', m.value) }),
        filter: ['country', m.value ?? ''],
      };
    case 'first_campaign':
      return {
        text: t('campaignBegan', { ...count, campaign: `${m.value}` }),
        filter: ['campaign', m.value ?? ''],
      };
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
        <h2 id="moments-title">{t('whatHappened')}</h2>
      </div>
      <ErrorNote error={data.error} />
      {!data.data && !data.error && <Spinner />}
      {data.data && data.data.moments.length === 0 && <p class="empty muted">{t('nothingStoodOut')}</p>}
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
                      {t.rich(CAME[hourly ? 'hour' : 'day'][via && to ? 'both' : via ? 'from' : 'to'], {
                        channel: via,
                        page: <code>{to}</code>,
                      })}
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
