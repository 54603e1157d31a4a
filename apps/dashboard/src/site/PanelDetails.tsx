import { useEffect, useState } from 'preact/hooks';
import { api, unwrap } from '../api/client.ts';
import { Modal } from '../components/Modal.tsx';
import { ErrorNote, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { t } from '../i18n/report.ts';
import { navigate } from '../router.ts';
import { Breakdown, type Row } from './Breakdown.tsx';
import { inSentence, type Tab } from './panels.ts';
import { dataKey, linkTo, periodQuery, type Scope } from './scope.ts';
import { withFilter } from './view.ts';

/**
 * A breakdown in full (up to 1000 rows), opened from its panel: every column, and a search over
 * its values. Both the open panel and the search are in the URL, so a link reopens it.
 */
export function PanelDetails(props: { scope: Scope; tab: Tab }) {
  const { scope, tab } = props;
  const search = scope.view.search ?? '';
  const [typed, setTyped] = useState(search);
  const [limit, setLimit] = useState(100);
  useEffect(() => {
    if (typed === search) return;
    const timer = setTimeout(
      () => navigate(linkTo(scope, { search: typed.trim() || undefined }), { replace: true }),
      250,
    );
    return () => clearTimeout(timer);
  }, [typed]);
  const rows = useLoad(
    (signal) =>
      unwrap(
        api.GET('/api/v1/sites/{site}/report/breakdown', {
          signal,
          params: {
            path: { site: scope.site.id },
            query: { dim: tab.dim, limit, search: search || undefined, ...periodQuery(scope) },
          },
        }),
      ).then((a) => ({ rows: a.rows as Row[], currency: a.revenue?.currency ?? null })),
    [dataKey(scope), tab.dim, search, limit],
  );
  const close = () => navigate(linkTo(scope, { panel: undefined, search: undefined }));
  return (
    <Modal title={tab.label} onClose={close} wide>
      <div class="details-search">
        <label for="details-search" class="visually-hidden">
          {t('searchIn', { name: inSentence(tab.label) })}
        </label>
        <input
          id="details-search"
          type="text"
          enterKeyHint="search"
          placeholder={t('searchIn', { name: inSentence(tab.label) })}
          maxLength={200}
          value={typed}
          onInput={(e) => setTyped(e.currentTarget.value)}
        />
      </div>
      <ErrorNote error={rows.error} />
      {rows.data ? (
        <>
          <Breakdown
            tab={tab}
            rows={rows.data.rows}
            currency={rows.data.currency}
            full
            hrefFor={(value) => linkTo(scope, (v) => withFilter(v, tab.filter, value))}
          />
          {rows.data.rows.length === limit && limit < 1000 && (
            <button type="button" class="button secondary" onClick={() => setLimit(1000)}>
              {t('showUpTo', { count: 1000 })}
            </button>
          )}
        </>
      ) : (
        !rows.error && <Spinner />
      )}
    </Modal>
  );
}
