import { api, unwrap } from '../api/client.ts';
import { compact, ErrorNote, Spinner } from '../components/ui.tsx';
import { t } from '../i18n/panels.ts';
import { periodQuery, type Scope } from './scope.ts';
import { useWhenSeen } from './when-seen.ts';

const KINDS = [
  { id: 'ai_assistant', name: t('aiAssistants'), hint: t('aiAssistantsHint') },
  { id: 'ai_training', name: t('aiCrawlers'), hint: t('aiCrawlersHint') },
  { id: 'search', name: t('searchBots'), hint: t('searchBotsHint') },
] as const;

/**
 * AI robots and search bots that read the site (as its server reports them to /api/crawl): hits by
 * class, the robots and the pages they read most, hits per day; and the tracker requests dropped
 * as robots. Loads when scrolled to.
 */
export function Robots({ scope }: { scope: Scope }) {
  const [ref, data] = useWhenSeen(scope, (signal) =>
    unwrap(
      api.GET('/api/v1/sites/{site}/report/crawlers', {
        signal,
        params: { path: { site: scope.site.id }, query: periodQuery(scope) },
      }),
    ),
  );
  const r = data.data;
  const busiest = r ? Math.max(1, ...r.chart.map((d) => d.ai_assistant + d.ai_training + d.search)) : 1;
  return (
    <section class="panel card robots" ref={ref} aria-labelledby="robots-title">
      <div class="panel-head">
        <h2 id="robots-title">{t('robots')}</h2>
        {r && (
          <span class="muted small">
            {t('pageReads', { count: r.totals.hits, n: compact(r.totals.hits) })}
          </span>
        )}
      </div>
      <ErrorNote error={data.error} />
      {!r && !data.error && <Spinner />}
      {r && r.totals.hits === 0 && (
        <p class="empty muted">{t.rich('noRobots', { code: <code>{'POST /api/crawl'}</code> })}</p>
      )}
      {r && r.totals.hits > 0 && (
        <>
          <dl class="robot-kinds">
            {KINDS.map((k) => (
              <div key={k.id}>
                <dt title={k.hint}>{k.name}</dt>
                <dd>{compact(r.totals.by_kind[k.id])}</dd>
              </div>
            ))}
          </dl>
          <div class="robot-days" aria-hidden="true">
            {r.chart.map((d) => {
              const total = d.ai_assistant + d.ai_training + d.search;
              return (
                <span
                  key={d.day}
                  class="robot-day"
                  title={`${d.day}: ${total}`}
                  style={{ height: `${Math.round((total / busiest) * 100)}%` }}
                />
              );
            })}
          </div>
          <div class="robot-tables">
            <table class="data">
              <caption class="visually-hidden">{t('robotsCaption')}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('robot')}</th>
                  <th scope="col" class="num">
                    {t('reads')}
                  </th>
                </tr>
              </thead>
              <tbody>
                {r.robots.slice(0, 8).map((x) => (
                  <tr key={x.robot}>
                    <th scope="row">
                      {x.robot} <span class="muted small">{KINDS.find((k) => k.id === x.kind)?.name}</span>
                    </th>
                    <td class="num">{compact(x.hits)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <table class="data">
              <caption class="visually-hidden">{t('robotPagesCaption')}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('page')}</th>
                  <th scope="col" class="num">
                    {t('aiReads')}
                  </th>
                </tr>
              </thead>
              <tbody>
                {r.pages.slice(0, 8).map((p) => (
                  <tr key={p.path}>
                    <th scope="row">{p.path}</th>
                    <td class="num">{compact(p.ai_assistant + p.ai_training)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      {r && r.bots_dropped.total > 0 && (
        <p class="muted small">
          {t('botsDropped', { count: r.bots_dropped.total, n: compact(r.bots_dropped.total) })}
        </p>
      )}
    </section>
  );
}
