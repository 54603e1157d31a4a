import { api, unwrap } from '../api/client.ts';
import { compact, ErrorNote, Spinner } from '../components/ui.tsx';
import { periodQuery, type Scope } from './scope.ts';
import { useWhenSeen } from './when-seen.ts';

const KINDS = [
  { id: 'ai_assistant', name: 'AI assistants', hint: 'fetched for a person asking an assistant' },
  { id: 'ai_training', name: 'AI crawlers', hint: 'collecting for models' },
  { id: 'search', name: 'Search bots', hint: 'indexing for search engines' },
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
        <h2 id="robots-title">AI &amp; search robots</h2>
        {r && <span class="muted small">{compact(r.totals.hits)} page reads</span>}
      </div>
      <ErrorNote error={data.error} />
      {!r && !data.error && <Spinner />}
      {r && r.totals.hits === 0 && (
        <p class="empty muted">
          No robot reported in this period. Your server reports the robots that read your pages with{' '}
          <code>POST /api/crawl</code> and the site's proxy key: infra/crawl in Footfall's files has ready
          recipes for Node (Hono, Express), a Cloudflare Worker, nginx and access logs.
        </p>
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
              <caption class="visually-hidden">Robots with the most page reads</caption>
              <thead>
                <tr>
                  <th scope="col">Robot</th>
                  <th scope="col" class="num">
                    Reads
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
              <caption class="visually-hidden">Pages robots read most</caption>
              <thead>
                <tr>
                  <th scope="col">Page</th>
                  <th scope="col" class="num">
                    AI reads
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
          {compact(r.bots_dropped.total)} requests to the tracker were dropped as robots and counted nowhere.
        </p>
      )}
    </section>
  );
}
