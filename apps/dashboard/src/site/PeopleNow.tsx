import type { Schema } from '../api/client.ts';
import { Link, Spinner } from '../components/ui.tsx';
import { href } from '../href.ts';
import { displayValue } from './panels.ts';
import { ago } from './time.ts';

/** People seen in the last 30 minutes (those of the last 5 marked), each a link to their journey. */
export function PeopleNow({
  site,
  numbers,
}: {
  site: Schema<'Site'>;
  numbers: Schema<'NowNumbers'> | undefined;
}) {
  return (
    <section class="card" aria-labelledby="people-title">
      <h2 id="people-title">People in the last 30 minutes</h2>
      {!numbers && <Spinner />}
      {numbers && numbers.recent.length === 0 && <p class="empty muted">Nobody yet.</p>}
      {numbers && numbers.recent.length > 0 && (
        <div class="table-scroll">
          <table class="data people">
            <thead>
              <tr>
                <th scope="col">Page</th>
                <th scope="col">From</th>
                <th scope="col">Where</th>
                <th scope="col" class="num">
                  Pageviews
                </th>
                <th scope="col">Seen</th>
              </tr>
            </thead>
            <tbody>
              {numbers.recent.map((p) => (
                <tr key={p.visitor} class={p.kind === 'active' ? 'active' : undefined}>
                  <td>
                    <Link
                      href={href(`/sites/${site.id}/live`, { journey: p.visitor })}
                      aria-label={`Journey of the visitor on ${p.path ?? 'the site'}`}
                    >
                      {p.path ?? '–'}
                    </Link>
                  </td>
                  <td>{p.referrer ?? p.channel ?? '–'}</td>
                  <td>
                    {[p.city, p.country ? displayValue('country', p.country) : null]
                      .filter(Boolean)
                      .join(', ') || '–'}
                  </td>
                  <td class="num">{p.pageviews}</td>
                  <td>
                    <time dateTime={p.seen}>{ago(p.seen)}</time>
                    {p.kind === 'active' && <span class="visually-hidden"> (on the site now)</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {numbers?.more && <p class="muted">and {numbers.more} more</p>}
    </section>
  );
}
