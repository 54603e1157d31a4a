import { useRef, useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { uploadingFetch } from '../api/upload.ts';
import { ConfirmAction, ErrorNote, Field, InputField, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';
import { formatDate, formatDateTime, formatNumber, formatPercent } from '../i18n/format.ts';
import { t } from '../i18n/siteSettings.ts';

const day = (d: string) => formatDate(`${d}T00:00:00Z`, 'UTC');
const TOOLS = { plausible: 'Plausible', umami: 'Umami', ga4: 'Google Analytics 4' } as const;
type Source = keyof typeof TOOLS;
/** Where a listed import came from: the tools above, or another Footfall (`footfall import footfall`) */
const SOURCES: Record<Schema<'Import'>['source'], string> = { ...TOOLS, footfall: 'Footfall' };

/** What an import kept: its days, or that it kept none. */
function kept(i: Schema<'Import'>): string {
  return i.from && i.to ? t('importDays', { from: day(i.from), to: day(i.to) }) : t('importNoDays');
}

/** What was skipped, by reason (the API's own words). */
function skipped(s: Record<string, number>): string[] {
  return Object.entries(s).map(([reason, n]) => t('importSkipped', { count: formatNumber(n), reason }));
}

/**
 * A site's imports (owners): upload Plausible's CSV export as it downloads it (a zip) or a zip of
 * Umami's two tables, or read a GA4 property with a service account's key (used once, never
 * stored); the list of imports with the days each holds and what it skipped, and Delete (not
 * Umami's: its events are the site's own once loaded). docs/imports.md.
 */
export function ImportSettings({ site }: { site: string }) {
  const list = useLoad(
    (signal) => unwrap(api.GET('/api/v1/sites/{site}/imports', { signal, params: { path: { site } } })),
    [site],
  );
  const [file, setFile] = useState<File | null>(null);
  const [source, setSource] = useState<Source>('plausible');
  const [website, setWebsite] = useState('');
  const [ga4, setGa4] = useState({ property: '', key: '', from: '', to: '' });
  const [done, setDone] = useState<Schema<'ImportSummary'> | null>(null);
  // how much of the file has gone up; null once it has (the service imports it then)
  const [sending, setSending] = useState<{ sent: number; total: number } | null>(null);
  const upload = useSubmit(async () => {
    setDone(null);
    const summary =
      source === 'ga4'
        ? await unwrap(
            api.POST('/api/v1/sites/{site}/imports', {
              params: { path: { site }, query: { source } },
              body: {
                property: ga4.property.trim(),
                service_account_key: ga4.key,
                from: ga4.from,
                to: ga4.to,
              },
            }),
          )
        : file &&
          (await unwrap(
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
              body: file as unknown as Schema<'Ga4ImportRequest'>,
              bodySerializer: (body: unknown) => body as BodyInit,
              headers: { 'content-type': 'application/zip' },
              fetch: uploadingFetch(file, (sent, total) => setSending(sent < total ? { sent, total } : null)),
            }),
          ).finally(() => setSending(null)));
    if (!summary) return;
    setDone(summary);
    setFile(null);
    list.reload();
  });
  const ready =
    source === 'ga4' ? Boolean(ga4.property.trim() && ga4.key.trim() && ga4.from && ga4.to) : file !== null;
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
      <form class="form-narrow" onSubmit={upload.submit} aria-label={t('newImport')}>
        <Field label={t('importFrom')}>
          {(id) => (
            <select id={id} value={source} onChange={(e) => setSource(e.currentTarget.value as Source)}>
              {Object.entries(TOOLS).map(([value, name]) => (
                <option key={value} value={value}>
                  {name}
                </option>
              ))}
            </select>
          )}
        </Field>
        {source === 'umami' && (
          <InputField
            label={t('umamiWebsite')}
            hint={t('umamiWebsiteHint')}
            value={website}
            onValue={setWebsite}
            maxLength={100}
            error={upload.fieldError('website')}
          />
        )}
        {source === 'ga4' ? (
          <>
            <InputField
              label={t('ga4Property')}
              hint={t('ga4PropertyHint')}
              value={ga4.property}
              onValue={(property) => setGa4({ ...ga4, property })}
              maxLength={40}
              error={upload.fieldError('property')}
            />
            <Field
              label={t('ga4Key')}
              hint={t('ga4KeyHint')}
              error={upload.fieldError('service_account_key')}
            >
              {(id, describedBy) => (
                <textarea
                  id={id}
                  aria-describedby={describedBy}
                  rows={5}
                  value={ga4.key}
                  spellcheck={false}
                  autocomplete="off"
                  onInput={(e) => setGa4({ ...ga4, key: e.currentTarget.value })}
                />
              )}
            </Field>
            <div class="field-row">
              <InputField
                label={t('ga4From')}
                type="date"
                value={ga4.from}
                onValue={(from) => setGa4({ ...ga4, from })}
                error={upload.fieldError('from')}
              />
              <InputField
                label={t('ga4To')}
                type="date"
                value={ga4.to}
                onValue={(to) => setGa4({ ...ga4, to })}
                error={upload.fieldError('to')}
              />
            </div>
          </>
        ) : (
          <Field
            label={source === 'plausible' ? t('plausibleExport') : t('umamiExport')}
            hint={source === 'plausible' ? t('plausibleExportHint') : t('umamiExportHint')}
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
        )}
        <ErrorNote error={upload.formError('website', 'property', 'service_account_key', 'from', 'to')} />
        <div class="row">
          <button class="button primary" type="submit" disabled={upload.busy || !ready}>
            {upload.busy ? t('importing') : t('importPlausible')}
          </button>
          {upload.busy && !sending && <Spinner />}
        </div>
        {sending && (
          <label class="upload-progress">
            {t('importSending', { percent: formatPercent(sending.sent / sending.total) })}
            <progress max={sending.total} value={sending.sent} />
          </label>
        )}
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
                <strong>{i.name}</strong> <span class="muted">{SOURCES[i.source]}</span>
                <div>{i.state === 'importing' ? t('importRunning') : kept(i)}</div>
                <div class="muted">
                  {t('importRows', { read: formatNumber(i.rows_read), at: formatDateTime(i.created_at) })}{' '}
                  {skipped(i.skipped).join(' ')}
                </div>
              </div>
              {i.state === 'done' && (i.source === 'plausible' || i.source === 'ga4') && (
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
