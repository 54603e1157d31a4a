import type { Schema } from '../api/client.ts';
import { Link, Spinner } from '../components/ui.tsx';
import { href } from '../href.ts';
import { formatNumber } from '../i18n/format.ts';
import { t } from '../i18n/report.ts';
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
      <h2 id="people-title">{t('peopleTitle')}</h2>
      {!numbers && <Spinner />}
      {numbers && numbers.recent.length === 0 && <p class="empty muted">{t('nobodyYet')}</p>}
      {numbers && numbers.recent.length > 0 && (
        <div class="table-scroll">
          <table class="data people">
            <thead>
              <tr>
                <th scope="col">{t('page')}</th>
                <th scope="col">{t('from')}</th>
                <th scope="col">{t('where')}</th>
                <th scope="col" class="num">
                  {t('pageviews')}
                </th>
                <th scope="col">{t('seen')}</th>
              </tr>
            </thead>
            <tbody>
              {numbers.recent.map((p) => (
                <tr key={p.visitor} class={p.kind === 'active' ? 'active' : undefined}>
                  <td>
                    <Link
                      href={href(`/sites/${site.id}/live`, { journey: p.visitor })}
                      aria-label={p.path ? t('journeyOn', { page: p.path }) : t('journeyOnSite')}
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
                  <td class="num">{formatNumber(p.pageviews)}</td>
                  <td>
                    <time dateTime={p.seen}>{ago(p.seen)}</time>
                    {p.kind === 'active' && <span class="visually-hidden"> {t('onSiteNow')}</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {numbers?.more && <p class="muted">{t('andMore', { count: numbers.more })}</p>}
    </section>
  );
}
