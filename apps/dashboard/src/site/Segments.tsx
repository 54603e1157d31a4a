import { useEffect, useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ErrorNote, Link, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';
import { t } from '../i18n/panels.ts';
import { navigate } from '../router.ts';
import { isOwner, session } from '../session.ts';
import { linkTo, type Scope } from './scope.ts';

type Segment = Schema<'Segment'>;

/**
 * The saved segments of a site, in the report's Segments menu: each a link to the segment (it
 * opens with the segment's filters as they are then, view.ts); the filters in force saved under a
 * name (shared with the site's readers by an owner); a segment deleted by its author, or a shared
 * one by an owner.
 */
export function SegmentList(props: { scope: Scope; onChosen: () => void }) {
  const { scope } = props;
  const path = { site: scope.site.id };
  const list = useLoad(
    (signal) => unwrap(api.GET('/api/v1/sites/{site}/segments', { signal, params: { path } })),
    [scope.site.id],
  );
  const [name, setName] = useState('');
  const [shared, setShared] = useState(false);
  const save = useSubmit(async () => {
    await unwrap(
      api.POST('/api/v1/sites/{site}/segments', {
        params: { path },
        body: { name, filters: scope.view.filters, ...(shared ? { shared } : {}) },
      }),
    );
    setName('');
    setShared(false);
    list.reload();
  });
  const [removeError, setRemoveError] = useState<unknown>();
  const [removing, setRemoving] = useState(false);
  const me = session.value?.person.id;
  const deletable = (s: Segment) => s.author?.id === me || (s.shared && isOwner.value);
  const segments = list.data?.segments ?? [];
  return (
    <div class="segments">
      {list.loading && !list.data && <Spinner />}
      <ErrorNote error={list.error ?? removeError} />
      {list.data && segments.length === 0 && <p class="muted">{t('segmentsNone')}</p>}
      <ul class="segment-list">
        {segments.map((s) => (
          <li key={s.id}>
            <Link
              href={linkTo(scope, { filters: [], segment: s.id, panel: undefined, search: undefined })}
              onClick={props.onChosen}
              title={s.filters.join(' · ')}
            >
              {s.name}
            </Link>
            {s.shared && <span class="muted">{t('segmentShared')}</span>}
            {deletable(s) && (
              <button
                type="button"
                class="icon-button"
                aria-label={t('segmentDelete', { name: s.name })}
                disabled={removing}
                onClick={async () => {
                  setRemoving(true);
                  setRemoveError(undefined);
                  try {
                    await unwrap(
                      api.DELETE('/api/v1/sites/{site}/segments/{id}', {
                        params: { path: { ...path, id: s.id } },
                      }),
                    );
                  } catch (error) {
                    setRemoveError(error);
                  } finally {
                    setRemoving(false);
                    list.reload();
                  }
                }}
              >
                ×
              </button>
            )}
          </li>
        ))}
      </ul>
      {scope.view.filters.length > 0 && (
        <form class="segment-save" onSubmit={save.submit}>
          <label>
            {t('segmentSaveLabel')}
            <input
              value={name}
              maxLength={100}
              required
              placeholder={t('segmentNamePlaceholder')}
              onInput={(e) => setName(e.currentTarget.value)}
            />
          </label>
          {isOwner.value && (
            <label class="check">
              <input type="checkbox" checked={shared} onChange={(e) => setShared(e.currentTarget.checked)} />
              {t('segmentShareLabel')}
            </label>
          )}
          <ErrorNote error={save.error} />
          <button type="submit" class="button secondary small" disabled={save.busy}>
            {t('segmentSave')}
          </button>
        </form>
      )}
    </div>
  );
}

/**
 * A report opened by a link to a saved segment (`?segment=<id>`, view.ts): looks the segment up
 * as it is now and names its filters in the URL instead (replacing the history entry, so Back
 * leaves the report). A segment deleted, or not shared with this person, is said so here and
 * handed to `onGone` (the report then shows every visit).
 */
export function SegmentLink(props: { scope: Scope; onGone: (id: string) => void }) {
  const { scope } = props;
  const id = scope.view.segment;
  const list = useLoad(
    (signal) =>
      unwrap(api.GET('/api/v1/sites/{site}/segments', { signal, params: { path: { site: scope.site.id } } })),
    [scope.site.id, id],
  );
  const found = list.data?.segments.find((s) => s.id === id);
  const gone = id !== undefined && (list.error !== undefined || (list.data !== undefined && !found));
  useEffect(() => {
    if (found) navigate(linkTo(scope, { filters: found.filters, segment: undefined }), { replace: true });
    else if (gone) props.onGone(id);
  }, [found, gone]);
  return gone ? (
    <p class="notice" role="status">
      {t('segmentGone')}
    </p>
  ) : null;
}
