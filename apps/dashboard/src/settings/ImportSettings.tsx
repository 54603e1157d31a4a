import { useRef, useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ConfirmAction, ErrorNote, Field, InputField, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';
import { formatDate, formatDateTime, formatNumber } from '../i18n/format.ts';
import { t } from '../i18n/siteSettings.ts';

const day = (d: string) => formatDate(`${d}T00:00:00Z`, 'UTC');
const TOOLS = { plausible: 'Plausible', umami: 'Umami' } as const;
type Source = keyof typeof TOOLS;

/** What an import kept: its days, or that it kept none. */
function kept(i: Schema<'Import'>): string {
  return i.from && i.to ? t('importDays', { from: day(i.from), to: day(i.to) }) : t('importNoDays');
}

/** What was skipped, by reason (the API's own words). */
function skipped(s: Record<string, number>): string[] {
  return Object.entries(s).map(([reason, n]) => t('importSkipped', { count: formatNumber(n), reason }));
}

/**
 * A site's imports (owners): upload Plausible's CSV export as it downloads it (a zip), or a zip of
 * Umami's two tables; the list of imports with the days each holds and what it skipped, and Delete
 * (Plausible's: Umami's events are the site's own once loaded). docs/imports.md.
 */
export function ImportSettings({ site }: { site: string }) {
  const list = useLoad(
    (signal) => unwrap(api.GET('/api/v1/sites/{site}/imports', { signal, params: { path: { site } } })),
    [site],
  );
  const [file, setFile] = useState<File | null>(null);
  const [source, setSource] = useState<Source>('plausible');
  const [website, setWebsite] = useState('');
  const [done, setDone] = useState<Schema<'ImportSummary'> | null>(null);
  const upload = useSubmit(async () => {
    if (!file) return;
    setDone(null);
    const summary = await unwrap(
      api.POST('/api/v1/sites/{site}/imports', {
        params: {
          path: { site },
          query: {
            source,
            name: file.name.slice(0, 200),
            ...(source === 'umami' && website.trim() !== '' ? { website: website.trim() } : {}),
          },
        },
        // the zip as it is: no JSON
        body: file as unknown as string,
        bodySerializer: (body: unknown) => body as BodyInit,
        headers: { 'content-type': 'application/zip' },
      }),
    );
    setDone(summary);
    setFile(null);
    list.reload();
  });
  // the import being deleted: read by the submission, which runs before a re-render
  const removing = useRef<string | null>(null);
  const remove = useSubmit(async () => {
    const id = removing.current;
    if (!id) return;
    await unwrap(api.DELETE('/api/v1/sites/{site}/imports/{id}', { params: { path: { site, id } } }));
    list.reload();
  });
  const imports = list.data?.imports ?? [];
  return (
    <div class="stack">
      <p class="muted">{t('importsIntro')}</p>
      <form class="form-narrow" onSubmit={upload.submit} aria-label={t('importPlausible')}>
        <Field
          label={t('plausibleExport')}
          hint={t('plausibleExportHint')}
          error={upload.fieldError('source')}
        >
          {(id, describedBy) => (
            <input
              id={id}
              type="file"
              accept=".zip,application/zip"
              aria-describedby={describedBy}
              onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
            />
          )}
        </Field>
        <ErrorNote error={upload.error} />
        <div class="row">
          <button class="button primary" type="submit" disabled={upload.busy || !file}>
            {upload.busy ? t('importing') : t('importPlausible')}
          </button>
          {upload.busy && <Spinner />}
        </div>
      </form>
      {done && (
        <p class="notice" role="status">
          {done.events > 0
            ? t('importedEvents', { count: formatNumber(done.events), days: kept(done.import) })
            : done.days === 0
              ? t('importedNothing')
              : t('imported', { days: kept(done.import) })}{' '}
          {skipped(done.skipped).join(' ')}
        </p>
      )}
      <ErrorNote error={list.error} />
      {!list.data && !list.error && <Spinner />}
      {list.data && imports.length === 0 && <p class="muted">{t('noImports')}</p>}
      {imports.length > 0 && (
        <ul class="goal-list" aria-label={t('importsList')}>
          {imports.map((i) => (
            <li key={i.id}>
              <div>
                <strong>{i.name}</strong> <span class="muted">{TOOLS[i.source]}</span>
                <div>{i.state === 'importing' ? t('importRunning') : kept(i)}</div>
                <div class="muted">
                  {t('importRows', { read: formatNumber(i.rows_read), at: formatDateTime(i.created_at) })}{' '}
                  {skipped(i.skipped).join(' ')}
                </div>
              </div>
              {i.state === 'done' && i.source !== 'umami' && (
                <ConfirmAction
                  ask={t('deleteImport')}
                  askLabel={t('deleteImportOf', { name: i.name })}
                  confirm={t('deleteImportConfirm')}
                  busy={remove.busy}
                  onConfirm={() => {
                    removing.current = i.id;
                    void remove.submit();
                  }}
                />
              )}
            </li>
          ))}
        </ul>
      )}
      <ErrorNote error={remove.error} />
    </div>
  );
}
