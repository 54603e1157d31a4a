import { api, unwrap } from '../api/client.ts';
import { compact, ErrorNote, Link, Spinner } from '../components/ui.tsx';
import { periodQuery, type Scope } from './scope.ts';
import { useWhenSeen } from './when-seen.ts';

const percent = (n: number) => `${(n * 100).toFixed(n >= 0.1 || n === 0 ? 0 : 1)}%`;

/**
 * Each funnel of the site for the period and filters: per step the visitors who got there in
 * order, as a bar against step one, with the share and the drop-off from the step before.
 */
export function Funnels({ scope, settings }: { scope: Scope; settings: string | null }) {
  const [ref, data] = useWhenSeen(scope, (signal) =>
    unwrap(
      api.GET('/api/v1/sites/{site}/report/funnels', {
        signal,
        params: { path: { site: scope.site.id }, query: periodQuery(scope) },
      }),
    ),
  );
  const funnels = data.data?.funnels;
  return (
    <section class="panel card funnels" ref={ref} aria-labelledby="funnels-title">
      <div class="panel-head">
        <h2 id="funnels-title">Funnels</h2>
        {settings && (
          <Link class="small" href={settings}>
            Set funnels
          </Link>
        )}
      </div>
      <ErrorNote error={data.error} />
      {!funnels && !data.error && <Spinner />}
      {funnels && funnels.length === 0 && (
        <p class="empty muted">
          No funnel yet: a funnel is a path of steps (pages or custom events) and shows how many visitors go
          through each.
        </p>
      )}
      {funnels?.map((f) => (
        <div class="funnel" key={f.id}>
          <h3>
            {f.name}{' '}
            <span class="muted small">
              {f.within_days === null
                ? 'in one visit'
                : `within ${f.within_days} day${f.within_days === 1 ? '' : 's'}`}
            </span>
          </h3>
          <ol class="funnel-steps">
            {f.steps.map((s, i) => (
              <li key={`${i}-${s.match}`}>
                <span class="funnel-step-name">
                  {i + 1}. {s.name}
                </span>
                <span class="funnel-bar" aria-hidden="true">
                  <span style={{ width: `${Math.max(s.rate * 100, s.visitors > 0 ? 1 : 0)}%` }} />
                </span>
                <span class="num">
                  <strong>{compact(s.visitors)}</strong> <span class="muted">{percent(s.rate)}</span>
                  {i > 0 && s.dropped > 0 && <span class="muted small"> · {compact(s.dropped)} left</span>}
                </span>
              </li>
            ))}
          </ol>
        </div>
      ))}
    </section>
  );
}
