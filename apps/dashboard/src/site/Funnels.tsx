import { api, unwrap } from '../api/client.ts';
import { compact, ErrorNote, Link, Spinner } from '../components/ui.tsx';
import { formatPercent } from '../i18n/format.ts';
import { locale } from '../i18n/language.ts';
import { t } from '../i18n/panels.ts';
import { periodQuery, type Scope } from './scope.ts';
import { useWhenSeen } from './when-seen.ts';

const tenths = new Intl.NumberFormat(locale, {
  style: 'percent',
  minimumFractionDigits: 1,
  maximumFractionDigits: 1,
});
/** A rate in percent, to a tenth under 10% (5.3%), in the page's locale. */
function percent(n: number): string {
  const digits = n >= 0.1 || n === 0 ? 0 : 1;
  const rounded = Number((n * 100).toFixed(digits)) / 100; // rounded as ever (23/40 is 57%), written as the locale writes it
  return digits === 0 ? formatPercent(rounded) : tenths.format(rounded);
}

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
        <h2 id="funnels-title">{t('funnels')}</h2>
        {settings && (
          <Link class="small" href={settings}>
            {t('setFunnels')}
          </Link>
        )}
      </div>
      <ErrorNote error={data.error} />
      {!funnels && !data.error && <Spinner />}
      {funnels && funnels.length === 0 && <p class="empty muted">{t('noFunnels')}</p>}
      {funnels?.map((f) => (
        <div class="funnel" key={f.id}>
          <h3>
            {f.name}{' '}
            <span class="muted small">
              {f.within_days === null ? t('inOneVisit') : t('withinDays', { count: f.within_days })}
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
                  {i > 0 && s.dropped > 0 && (
                    <span class="muted small">
                      {' · '}
                      {t('droppedOff', { count: s.dropped, n: compact(s.dropped) })}
                    </span>
                  )}
                </span>
              </li>
            ))}
          </ol>
        </div>
      ))}
    </section>
  );
}
