import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ErrorNote, Link, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { t } from '../i18n/report.ts';
import { Breakdown, type Row } from './Breakdown.tsx';
import { PanelTabs } from './PanelTabs.tsx';
import { inSentence, type Panel, type Tab } from './panels.ts';
import { type AnyRows, dataKey, linkTo, periodQuery, type Scope } from './scope.ts';
import { withFilter } from './view.ts';

const KEY = 'footfall.tab.';

/** A breakdown the report did not carry (those of `deep=1`), asked for when its tab is chosen. */
function LoadedBreakdown(props: { scope: Scope; tab: Tab; hrefFor: (v: string | null) => string }) {
  const { scope, tab } = props;
  const rows = useLoad(
    (signal) =>
      unwrap(
        api.GET('/api/v1/sites/{site}/report/breakdown', {
          signal,
          params: {
            path: { site: scope.site.id },
            query: { dim: tab.dim, limit: 10, ...periodQuery(scope) },
          },
        }),
      ).then((a) => ({ rows: a.rows as Row[], currency: a.revenue?.currency ?? null })),
    [dataKey(scope), tab.dim],
  );
  if (rows.error) return <ErrorNote error={rows.error} />;
  if (!rows.data) return <Spinner />;
  return <Breakdown tab={tab} rows={rows.data.rows} currency={rows.data.currency} hrefFor={props.hrefFor} />;
}

/**
 * A panel of the report: its tabs (the choice kept in this browser), the chosen breakdown with
 * rows that filter, and a link to the breakdown in full.
 */
export function PanelCard(props: {
  panel: Panel;
  scope: Scope;
  breakdowns: Schema<'Breakdowns'>;
  /** the site's currency when the report carries revenue */
  currency: string | null;
}) {
  const { panel, scope } = props;
  const [chosen, setChosen] = useState(() => localStorage.getItem(KEY + panel.id));
  const tab = panel.tabs.find((one) => one.dim === chosen) ?? panel.tabs[0]!;
  const rows = props.breakdowns[tab.dim as keyof Schema<'Breakdowns'>] as AnyRows | undefined;
  const hrefFor = (value: string | null) => linkTo(scope, (v) => withFilter(v, tab.filter, value));
  return (
    <section class="panel card" aria-labelledby={`panel-${panel.id}`}>
      <div class="panel-head">
        <h2 id={`panel-${panel.id}`}>{panel.title}</h2>
        <PanelTabs
          title={panel.title}
          tabs={panel.tabs}
          current={tab}
          onChoose={(one) => {
            localStorage.setItem(KEY + panel.id, one.dim);
            setChosen(one.dim);
          }}
        />
      </div>
      {rows ? (
        <Breakdown tab={tab} rows={rows as Row[]} hrefFor={hrefFor} currency={props.currency} />
      ) : (
        <LoadedBreakdown scope={scope} tab={tab} hrefFor={hrefFor} />
      )}
      <div class="panel-foot">
        <Link
          href={linkTo(scope, { panel: tab.dim, search: undefined })}
          aria-label={t('allRowsLabel', { name: inSentence(tab.label) })}
        >
          {t('allRows', { name: inSentence(tab.label) })}
        </Link>
      </div>
    </section>
  );
}
