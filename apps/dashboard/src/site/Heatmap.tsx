import { useState } from 'preact/hooks';
import { api, unwrap } from '../api/client.ts';
import { compact, ErrorNote, ScrollRegion, Spinner } from '../components/ui.tsx';
import { dateFormat } from '../i18n/format.ts';
import { t } from '../i18n/panels.ts';
import { periodQuery, type Scope } from './scope.ts';
import { useWhenSeen } from './when-seen.ts';

type Grid = number[][];
const KINDS = [
  ['visitors', t('visitors'), t('visitorsByHour')],
  ['visits', t('visits'), t('visitsByHour')],
  ['pageviews', t('pageviews'), t('pageviewsByHour')],
] as const;

/** The weekdays, Monday first, in the page's language: 1 January 2024 was a Monday. */
const weekdays = (weekday: 'long' | 'short') => {
  const format = dateFormat({ weekday, timeZone: 'UTC' });
  return Array.from({ length: 7 }, (_, d) => format.format(Date.UTC(2024, 0, 1 + d)));
};
const DAYS = weekdays('long');
const SHORT_DAYS = weekdays('short');

/** When people come: hour of the day by weekday (Monday first), in the site's zone. */
export function Heatmap({ scope }: { scope: Scope }) {
  const [kind, setKind] = useState<(typeof KINDS)[number][0]>('visitors');
  const [ref, data] = useWhenSeen(scope, (signal) =>
    unwrap(
      api.GET('/api/v1/sites/{site}/report/heatmap', {
        signal,
        params: { path: { site: scope.site.id }, query: periodQuery(scope) },
      }),
    ),
  );
  const grid: Grid | undefined = data.data?.[kind];
  const max = grid ? Math.max(1, ...grid.flat()) : 1;
  return (
    <section class="panel card heatmap" ref={ref} aria-labelledby="heatmap-title">
      <div class="panel-head">
        <h2 id="heatmap-title">{t('busyHours')}</h2>
        <div class="tabs">
          {KINDS.map(([k, label]) => (
            <button type="button" key={k} aria-pressed={k === kind} onClick={() => setKind(k)}>
              {label}
            </button>
          ))}
        </div>
      </div>
      <ErrorNote error={data.error} />
      {!grid && !data.error && <Spinner />}
      {grid && (
        <ScrollRegion label={t('busyHoursRegion')}>
          <table class="heatmap-grid">
            <caption class="visually-hidden">{KINDS.find(([k]) => k === kind)?.[2]}</caption>
            <thead>
              <tr>
                <td class="corner" />
                {grid[0]!.map((_, h) => (
                  <th scope="col" key={h}>
                    {h % 3 === 0 ? h : <span class="visually-hidden">{h}</span>}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {grid.map((row, d) => (
                <tr key={d}>
                  <th scope="row">
                    <abbr title={DAYS[d]}>{SHORT_DAYS[d]}</abbr>
                  </th>
                  {row.map((n, h) => (
                    <td
                      key={h}
                      title={t('hourCell', { day: DAYS[d]!, hour: h, count: n })}
                      style={{ '--level': (n / max).toFixed(3) }}
                    >
                      <span class="visually-hidden">{compact(n)}</span>
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
    </section>
  );
}
