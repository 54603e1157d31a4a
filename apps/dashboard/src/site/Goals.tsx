import type { Schema } from '../api/client.ts';
import { compact, Link } from '../components/ui.tsx';
import { formatPercent } from '../i18n/format.ts';
import { locale } from '../i18n/language.ts';
import { t } from '../i18n/panels.ts';
import { formatMoney } from './metrics.ts';

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
 * The report's goals: per goal the visitors who reached it, their share of the period's visitors,
 * the conversions and, with revenue, what the people who reached it paid, for the period and filters; a goal's name filters the report to the visits
 * that reached it. Without goals, owners get a link to define one.
 */
export function Goals(props: {
  goals: Schema<'ReportGoal'>[];
  /** with revenue: its currency, and each goal says what the people who reached it paid */
  currency: string | null;
  settings: string | null;
  /** the report filtered to the visits that reached a goal */
  hrefFor: (name: string) => string;
}) {
  const revenue = props.currency !== null && props.goals.some((g) => g.revenue !== undefined);
  return (
    <section class="panel card goals" aria-labelledby="goals-title">
      <div class="panel-head">
        <h2 id="goals-title">{t('goals')}</h2>
        {props.settings && (
          <Link class="small" href={props.settings}>
            {t('setGoals')}
          </Link>
        )}
      </div>
      {props.goals.length === 0 ? (
        <p class="empty muted">{t('noGoals')}</p>
      ) : (
        <table class="data">
          <caption class="visually-hidden">{t('goalsCaption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('goal')}</th>
              <th scope="col" class="num">
                {t('visitors')}
              </th>
              <th scope="col" class="num">
                {t('rate')}
              </th>
              <th scope="col" class="num">
                {t('conversions')}
              </th>
              {revenue && (
                <th scope="col" class="num" title={t('revenueHint')}>
                  {t('revenue')}
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {props.goals.map((g) => (
              <tr key={g.id}>
                <th scope="row">
                  <Link href={props.hrefFor(g.name)} title={t('onlyVisitsReaching', { goal: g.name })}>
                    {g.name}
                  </Link>
                </th>
                <td class="num">{compact(g.visitors)}</td>
                <td class="num">{percent(g.conversion_rate)}</td>
                <td class="num">{compact(g.conversions)}</td>
                {revenue && <td class="num">{formatMoney(g.revenue ?? 0, props.currency!, true)}</td>}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
