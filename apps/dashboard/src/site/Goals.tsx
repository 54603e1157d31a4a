import type { Schema } from '../api/client.ts';
import { compact, Link } from '../components/ui.tsx';
import { formatMoney } from './metrics.ts';

const percent = (n: number) => `${(n * 100).toFixed(n >= 0.1 || n === 0 ? 0 : 1)}%`;

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
        <h2 id="goals-title">Goals</h2>
        {props.settings && (
          <Link class="small" href={props.settings}>
            Set goals
          </Link>
        )}
      </div>
      {props.goals.length === 0 ? (
        <p class="empty muted">
          No goal yet: a goal is a page (such as /thanks) or a custom event (such as Signup) that counts as a
          conversion.
        </p>
      ) : (
        <table class="data">
          <caption class="visually-hidden">
            Goals: visitors who reached each, their share, and conversions
          </caption>
          <thead>
            <tr>
              <th scope="col">Goal</th>
              <th scope="col" class="num">
                Visitors
              </th>
              <th scope="col" class="num">
                Rate
              </th>
              <th scope="col" class="num">
                Conversions
              </th>
              {revenue && (
                <th scope="col" class="num" title="What the people who reached the goal paid, before paying">
                  Revenue
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {props.goals.map((g) => (
              <tr key={g.id}>
                <th scope="row">
                  <Link href={props.hrefFor(g.name)} title={`Only the visits that reached ${g.name}`}>
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
