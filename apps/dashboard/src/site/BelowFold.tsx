import type { Schema } from '../api/client.ts';
import { isOwner } from '../session.ts';
import { AiSearch } from './AiSearch.tsx';
import { ChartCards } from './Charts.tsx';
import { Funnels } from './Funnels.tsx';
import { Goals } from './Goals.tsx';
import { Heatmap } from './Heatmap.tsx';
import { Moments } from './Moments.tsx';
import { Retention } from './Retention.tsx';
import { Robots } from './Robots.tsx';
import { linkTo, type Scope } from './scope.ts';
import { Vitals } from './Vitals.tsx';
import { withFilter } from './view.ts';

/**
 * The report's panels under the breakdowns: goals, funnels, the trend charts, what happened, the heatmap, returning visitors, Web Vitals,
 * AI & search and the robots, each as its module allows. A chunk of its own, loaded after the
 * first view: none of it is on the first screen.
 */
export function BelowFold(props: {
  scope: Scope;
  goals: Schema<'ReportGoal'>[] | null;
  currency: string | null;
}) {
  const { scope } = props;
  const { site } = scope;
  return (
    <>
      {props.goals && (
        <Goals
          goals={props.goals}
          currency={props.currency}
          settings={isOwner.value ? `/sites/${site.id}/settings#goals` : null}
          hrefFor={(name) => linkTo(scope, (v) => withFilter(v, 'goal', name))}
        />
      )}
      {site.modules.funnels && (
        <Funnels scope={scope} settings={isOwner.value ? `/sites/${site.id}/settings#funnels` : null} />
      )}
      <ChartCards scope={scope} />
      <Moments scope={scope} />
      <Heatmap scope={scope} />
      {site.modules.retention && <Retention scope={scope} />}
      {site.modules.vitals && <Vitals scope={scope} />}
      {site.modules.crawlers && <AiSearch scope={scope} />}
      {site.modules.crawlers && <Robots scope={scope} />}
    </>
  );
}
