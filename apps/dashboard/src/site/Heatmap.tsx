import { useState } from 'preact/hooks';
import { api, unwrap } from '../api/client.ts';
import { compact, ErrorNote, ScrollRegion, Spinner } from '../components/ui.tsx';
import { periodQuery, type Scope } from './scope.ts';
import { useWhenSeen } from './when-seen.ts';

type Grid = number[][];
const KINDS = [
  ['visitors', 'Visitors'],
  ['visits', 'Visits'],
  ['pageviews', 'Pageviews'],
] as const;
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

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
        <h2 id="heatmap-title">Busy hours</h2>
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
        <ScrollRegion label="Busy hours, by weekday and hour">
          <table class="heatmap-grid">
            <caption class="visually-hidden">{kind} by weekday and hour</caption>
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
                <tr key={DAYS[d]}>
                  <th scope="row">
                    <abbr title={DAYS[d]}>{DAYS[d]!.slice(0, 3)}</abbr>
                  </th>
                  {row.map((n, h) => (
                    <td
                      key={h}
                      title={`${DAYS[d]} ${h}:00: ${n.toLocaleString('en')}`}
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
