import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ErrorNote, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { milestoneCardUrl, PublicLink } from '../site/Milestones.tsx';

type Kind = Schema<'MilestoneKindName'>;

/** Each kind in words, in the order the API lists them. */
const KINDS: [Kind, string][] = [
  ['visitors', 'Visitors: 100, 250, 500, 1,000 …'],
  ['pageviews', 'Pageviews: 100, 250, 500, 1,000 …'],
  ['countries', 'Countries visitors came from: 5, 10, 25 …'],
  ['revenue', 'Revenue: 100, 250, 500 … in the site currency'],
  ['record_day', 'A record day'],
  ['first_goal', 'The first goal reached'],
  ['first_sale', 'The first sale'],
];

const longDay = (day: string) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, { dateStyle: 'medium', timeZone: 'UTC' });

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
      <p class="muted">
        Once a day, when the site's day is over, Footfall looks at what it reached and shows each new
        milestone above the report, with a card to post.
      </p>
      <ErrorNote error={list.error} />
      {!list.data && !list.error && <Spinner />}
      {list.data && (
        <fieldset class="stack">
          <legend>Look for</legend>
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
      {list.data && list.data.milestones.length === 0 && <p>No milestone reached yet.</p>}
      {list.data && list.data.milestones.length > 0 && (
        <ul class="share-list">
          {list.data.milestones.map((m) => (
            <li class="share-item stack" key={`${m.kind}/${m.step}`}>
              <div class="row">
                <strong>{m.headline}</strong>
                <span class="muted">{longDay(m.day)}</span>
                <a href={milestoneCardUrl(site, m)} target="_blank" rel="noreferrer">
                  Card<span class="visually-hidden"> of {m.headline}</span>
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
