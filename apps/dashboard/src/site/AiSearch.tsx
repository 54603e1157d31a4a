import { api, unwrap } from '../api/client.ts';
import { compact, ErrorNote, Spinner } from '../components/ui.tsx';
import { periodQuery, type Scope } from './scope.ts';
import { useWhenSeen } from './when-seen.ts';

const NO_CREDIT =
  'AI robots read this page at least 10 times, and no assistant sent anyone to it: assistants use it without credit.';

const NOT_READ =
  'Search engines sent people to this page at least 5 times (Google Search Console), and no AI robot read it: assistants may not know it.';

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
        <h2 id="ai-search-title">AI &amp; search</h2>
      </div>
      <ErrorNote error={data.error} />
      {!r && !data.error && <Spinner />}
      {r && (
        <>
          <dl class="robot-kinds">
            <div>
              <dt title="visitors whose visit an AI assistant started">Visitors sent by AI</dt>
              <dd>{compact(r.visitors)}</dd>
            </div>
            <div>
              <dt title="page reads by AI assistants and AI crawlers, as your server reports them">
                AI robot reads
              </dt>
              <dd>{compact(r.reads)}</dd>
            </div>
            <div>
              <dt title="pages read at least 10 times that no assistant sent a visitor to">No credit</dt>
              <dd>{compact(r.pages.filter((p) => p.flag === 'no_credit').length)}</dd>
            </div>
            {search && (
              <div>
                <dt title="pages with at least 5 search clicks that no AI robot read">Not read</dt>
                <dd>{compact(r.pages.filter((p) => p.flag === 'not_read').length)}</dd>
              </div>
            )}
          </dl>
          {search && !search.robots_reported && (
            <p class="muted small">
              Search Console is connected ({search.property}); "Not read" shows once your server reports
              robots.
            </p>
          )}
          {r.visitors === 0 && r.reads === 0 && r.pages.length === 0 ? (
            <p class="empty muted">
              No assistant sent a visitor and no AI robot was reported in this period. Robot reads come from
              your server (<code>POST /api/crawl</code>, see the documentation, ingest).
            </p>
          ) : (
            <div class="robot-tables">
              <table class="data">
                <caption class="visually-hidden">Assistants that sent visitors</caption>
                <thead>
                  <tr>
                    <th scope="col">Assistant</th>
                    <th scope="col" class="num">
                      Visitors
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {r.assistants.length === 0 && (
                    <tr>
                      <td colSpan={2} class="muted">
                        none in this period
                      </td>
                    </tr>
                  )}
                  {r.assistants.slice(0, 8).map((a) => (
                    <tr key={a.value ?? ''}>
                      <th scope="row">{a.value ?? 'Unknown assistant'}</th>
                      <td class="num">{compact(a.visitors)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <table class="data">
                <caption class="visually-hidden">Pages: AI robot reads and visitors sent</caption>
                <thead>
                  <tr>
                    <th scope="col">Page</th>
                    <th scope="col" class="num">
                      Read
                    </th>
                    <th scope="col" class="num">
                      Sent
                    </th>
                    {search && (
                      <th scope="col" class="num" title="search-engine clicks (Google Search Console)">
                        Clicks
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
                          <span class="flag-badge" title={NO_CREDIT}>
                            No credit
                          </span>
                        )}
                        {p.flag === 'not_read' && (
                          <span class="flag-badge" title={NOT_READ}>
                            Not read
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
