import { api, unwrap } from '../api/client.ts';
import { compact, ErrorNote, ScrollRegion, Spinner } from '../components/ui.tsx';
import { formatPercent } from '../i18n/format.ts';
import { t } from '../i18n/panels.ts';
import { rangeLabel } from './period.ts';
import { periodQuery, type Scope } from './scope.ts';
import { useWhenSeen } from './when-seen.ts';

/** Weekly cohorts of first visits: how many came back one, two, … weeks later. */
export function Retention({ scope }: { scope: Scope }) {
  const [ref, data] = useWhenSeen(scope, (signal) =>
    unwrap(
      api.GET('/api/v1/sites/{site}/report/retention', {
        signal,
        params: { path: { site: scope.site.id }, query: periodQuery(scope) },
      }),
    ),
  );
  const cohorts = data.data?.cohorts;
  const weeks = cohorts ? Math.min(12, Math.max(1, ...cohorts.map((c) => c.weeks.length))) : 0;
  return (
    <section class="panel card retention" ref={ref} aria-labelledby="retention-title">
      <div class="panel-head">
        <h2 id="retention-title">{t('returningVisitors')}</h2>
      </div>
      <ErrorNote error={data.error} />
      {!cohorts && !data.error && <Spinner />}
      {cohorts && cohorts.length === 0 && <p class="empty muted">{t('noFirstVisits')}</p>}
      {cohorts && cohorts.length > 0 && (
        <ScrollRegion label={t('returningByWeek')}>
          <table class="retention-grid">
            <caption class="visually-hidden">{t('retentionCaption')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('firstVisitWeekOf')}</th>
                <th scope="col" class="num">
                  {t('visitors')}
                </th>
                {Array.from({ length: weeks - 1 }, (_, k) => (
                  <th scope="col" class="num" key={k}>
                    <span aria-hidden="true">+{k + 1}</span>
                    <span class="visually-hidden">{t('weeksLater', { count: k + 1 })}</span>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {cohorts.map((c) => (
                <tr key={c.week}>
                  <th scope="row">{rangeLabel({ from: c.week, to: c.week })}</th>
                  <td class="num">{compact(c.visitors)}</td>
                  {Array.from({ length: weeks - 1 }, (_, k) => {
                    const back = c.weeks[k + 1];
                    const share = back === undefined || c.visitors === 0 ? undefined : back / c.visitors;
                    return (
                      <td
                        class="num cell"
                        key={k}
                        style={share === undefined ? undefined : { '--level': share.toFixed(3) }}
                      >
                        {share === undefined ? '' : formatPercent(Math.round(share * 100) / 100)}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
    </section>
  );
}
