import { api, unwrap } from '../api/client.ts';
import { compact, ErrorNote, Spinner } from '../components/ui.tsx';
import { t } from '../i18n/panels.ts';
import { periodQuery, type Scope } from './scope.ts';
import { useWhenSeen } from './when-seen.ts';

/**
 * What AI assistants do with the site: the visitors they sent and from which assistant, and per
 * page how often AI robots read it against how many visitors assistants sent to it, with the
 * "No credit" badge on pages read often and never credited; with Search Console connected, the
 * search clicks of each page and the "Not read" badge on pages search sends people to that no AI
 * robot read. Loads when scrolled to.
 */
export function AiSearch({ scope }: { scope: Scope }) {
  const [ref, data] = useWhenSeen(scope, (signal) =>
    unwrap(
      api.GET('/api/v1/sites/{site}/report/ai-search', {
        signal,
        params: { path: { site: scope.site.id }, query: periodQuery(scope) },
      }),
    ),
  );
  const r = data.data;
  const search = r?.search_console ?? null;
  return (
    <section class="panel card ai-search" ref={ref} aria-labelledby="ai-search-title">
      <div class="panel-head">
        <h2 id="ai-search-title">{t('aiSearch')}</h2>
      </div>
      <ErrorNote error={data.error} />
      {!r && !data.error && <Spinner />}
      {r && (
        <>
          <dl class="robot-kinds">
            <div>
              <dt title={t('sentByAiHint')}>{t('sentByAi')}</dt>
              <dd>{compact(r.visitors)}</dd>
            </div>
            <div>
              <dt title={t('aiRobotReadsHint')}>{t('aiRobotReads')}</dt>
              <dd>{compact(r.reads)}</dd>
            </div>
            <div>
              <dt title={t('noCreditHint')}>{t('noCredit')}</dt>
              <dd>{compact(r.pages.filter((p) => p.flag === 'no_credit').length)}</dd>
            </div>
            {search && (
              <div>
                <dt title={t('notReadHint')}>{t('notRead')}</dt>
                <dd>{compact(r.pages.filter((p) => p.flag === 'not_read').length)}</dd>
              </div>
            )}
          </dl>
          {search && !search.robots_reported && (
            <p class="muted small">{t('searchConsoleConnected', { property: search.property })}</p>
          )}
          {r.visitors === 0 && r.reads === 0 && r.pages.length === 0 ? (
            <p class="empty muted">{t.rich('noAiActivity', { code: <code>{'POST /api/crawl'}</code> })}</p>
          ) : (
            <div class="robot-tables">
              <table class="data">
                <caption class="visually-hidden">{t('assistantsCaption')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('assistant')}</th>
                    <th scope="col" class="num">
                      {t('visitors')}
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {r.assistants.length === 0 && (
                    <tr>
                      <td colSpan={2} class="muted">
                        {t('noneInPeriod')}
                      </td>
                    </tr>
                  )}
                  {r.assistants.slice(0, 8).map((a) => (
                    <tr key={a.value ?? ''}>
                      <th scope="row">{a.value ?? t('unknownAssistant')}</th>
                      <td class="num">{compact(a.visitors)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <table class="data">
                <caption class="visually-hidden">{t('aiPagesCaption')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('page')}</th>
                    <th scope="col" class="num">
                      {t('read')}
                    </th>
                    <th scope="col" class="num">
                      {t('sent')}
                    </th>
                    {search && (
                      <th scope="col" class="num" title={t('clicksHint')}>
                        {t('clicks')}
                      </th>
                    )}
                  </tr>
                </thead>
                <tbody>
                  {r.pages.slice(0, 8).map((p) => (
                    <tr key={p.path}>
                      <th scope="row">
                        {p.path}{' '}
                        {p.flag === 'no_credit' && (
                          <span class="flag-badge" title={t('noCreditPage')}>
                            {t('noCredit')}
                          </span>
                        )}
                        {p.flag === 'not_read' && (
                          <span class="flag-badge" title={t('notReadPage')}>
                            {t('notRead')}
                          </span>
                        )}
                      </th>
                      <td class="num">{compact(p.read)}</td>
                      <td class="num">{compact(p.sent)}</td>
                      {search && <td class="num">{compact(p.clicks ?? 0)}</td>}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </section>
  );
}
