import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ErrorNote, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { formatDate } from '../i18n/format.ts';
import { t } from '../i18n/siteSettings.ts';
import { milestoneCardUrl, PublicLink } from '../site/Milestones.tsx';

type Kind = Schema<'MilestoneKindName'>;

/** Each kind in words, in the order the API lists them. */
const KINDS: [Kind, string][] = [
  ['visitors', t('milestoneVisitors')],
  ['pageviews', t('milestonePageviews')],
  ['countries', t('milestoneCountries')],
  ['revenue', t('milestoneRevenue')],
  ['record_day', t('milestoneRecordDay')],
  ['first_goal', t('milestoneFirstGoal')],
  ['first_sale', t('milestoneFirstSale')],
];

const longDay = (day: string) => formatDate(`${day}T00:00:00Z`, 'UTC');

/**
 * A site's milestones (owners): which kinds Footfall looks for, and what the site reached, each
 * with its card and its public link.
 */
export function MilestoneSettings({ site }: { site: string }) {
  const list = useLoad(
    (signal) => unwrap(api.GET('/api/v1/sites/{site}/milestones', { signal, params: { path: { site } } })),
    [site],
  );
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const toggle = async (kind: Kind, on: boolean) => {
    if (!list.data) return;
    const kinds = on ? [...list.data.kinds, kind] : list.data.kinds.filter((k) => k !== kind);
    setBusy(true);
    setError(undefined);
    try {
      await unwrap(
        api.PUT('/api/v1/sites/{site}/milestones', { params: { path: { site } }, body: { kinds } }),
      );
      list.reload();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="stack">
      <p class="muted">{t('milestonesIntro')}</p>
      <ErrorNote error={list.error} />
      {!list.data && !list.error && <Spinner />}
      {list.data && (
        <fieldset class="stack">
          <legend>{t('lookFor')}</legend>
          {KINDS.map(([kind, words]) => (
            <label class="check" key={kind}>
              <input
                type="checkbox"
                checked={list.data!.kinds.includes(kind)}
                disabled={busy}
                onChange={(e) => toggle(kind, e.currentTarget.checked)}
              />
              <span>{words}</span>
            </label>
          ))}
          <ErrorNote error={error} />
        </fieldset>
      )}
      {list.data && list.data.milestones.length === 0 && <p>{t('noMilestoneYet')}</p>}
      {list.data && list.data.milestones.length > 0 && (
        <ul class="share-list">
          {list.data.milestones.map((m) => (
            <li class="share-item stack" key={`${m.kind}/${m.step}`}>
              <div class="row">
                <strong>{m.headline}</strong>
                <span class="muted">{longDay(m.day)}</span>
                <a href={milestoneCardUrl(site, m)} target="_blank" rel="noreferrer">
                  {t('card')}
                  <span class="visually-hidden">{t('cardOfHidden', { headline: m.headline })}</span>
                </a>
              </div>
              <PublicLink site={site} milestone={m} onChanged={list.reload} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
