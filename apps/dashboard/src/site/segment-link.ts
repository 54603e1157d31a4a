import { useEffect } from 'preact/hooks';
import { api, unwrap } from '../api/client.ts';
import { useLoad } from '../components/use-load.ts';
import { navigate } from '../router.ts';
import { linkTo, type Scope } from './scope.ts';

/**
 * A report opened by a link to a saved segment (`?segment=<id>`, view.ts): the segment's filters
 * are looked up as they are now and the URL names them instead (replacing the history entry, so
 * Back leaves the report). `waiting` holds the report's request until then; `gone` says the
 * segment was deleted or is not shared with this person (the report then shows no filter).
 */
export function useSegmentLink(scope: Scope, enabled: boolean): { waiting: boolean; gone: boolean } {
  const id = enabled ? scope.view.segment : undefined;
  const list = useLoad(
    (signal) =>
      id === undefined
        ? Promise.resolve(null)
        : unwrap(
            api.GET('/api/v1/sites/{site}/segments', { signal, params: { path: { site: scope.site.id } } }),
          ),
    [scope.site.id, id],
  );
  const found = id === undefined ? undefined : list.data?.segments.find((s) => s.id === id);
  useEffect(() => {
    if (found) navigate(linkTo(scope, { filters: found.filters, segment: undefined }), { replace: true });
  }, [found]);
  if (id === undefined) return { waiting: false, gone: false };
  const gone =
    (list.data !== undefined && list.data !== null && found === undefined) || list.error !== undefined;
  return { waiting: !gone, gone };
}
