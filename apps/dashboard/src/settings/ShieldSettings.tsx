import { useState } from 'preact/hooks';
import { ApiError, api, type Schema, unwrap } from '../api/client.ts';
import { ErrorNote, Field } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';
import { formatNumber } from '../i18n/format.ts';
import { t } from '../i18n/siteSettings.ts';

type Shields = Schema<'Shields'>;
type ListName = keyof Shields;

const LISTS: { name: ListName; label: string; hint: string; placeholder: string }[] = [
  { name: 'ips', label: t('shieldIps'), hint: t('shieldIpsHint'), placeholder: '203.0.113.7\n10.0.0.0/8' },
  { name: 'countries', label: t('shieldCountries'), hint: t('shieldCountriesHint'), placeholder: 'FR' },
  { name: 'pages', label: t('shieldPages'), hint: t('shieldPagesHint'), placeholder: '/admin/*' },
  {
    name: 'hostnames',
    label: t('shieldHostnames'),
    hint: t('shieldHostnamesHint'),
    placeholder: 'staging.example.com',
  },
];

const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

const textsOf = (s: Shields | undefined): Record<ListName, string> => ({
  ips: s?.ips.join('\n') ?? '',
  countries: s?.countries.join('\n') ?? '',
  pages: s?.pages.join('\n') ?? '',
  hostnames: s?.hostnames.join('\n') ?? '',
});

/**
 * A site's shields: addresses, countries, pages and hosts whose traffic is never counted, one per
 * line, with what they kept out today and over the last 30 days (docs/ingest.md, "Shields").
 */
export function ShieldSettings(props: { site: Schema<'Site'>; onSaved: (s: Schema<'Site'>) => void }) {
  const path = { site: props.site.id };
  const counts = useLoad(
    (signal) => unwrap(api.GET('/api/v1/sites/{site}/shields', { signal, params: { path } })),
    [props.site.id],
  );
  const [texts, setTexts] = useState(() => textsOf(props.site.shields));
  const [saved, setSaved] = useState(false);
  const save = useSubmit(async () => {
    setSaved(false);
    const shields = Object.fromEntries(LISTS.map((l) => [l.name, lines(texts[l.name])])) as Shields;
    const answer = await unwrap(api.PATCH('/api/v1/sites/{site}', { params: { path }, body: { shields } }));
    setTexts(textsOf(answer.site.shields));
    setSaved(true);
    props.onSaved(answer.site);
    counts.reload();
  });
  /** the API names a bad entry `shields.ips[2]`: shown under its list, with its line */
  const errorOf = (name: ListName) => {
    const e = save.error;
    if (!(e instanceof ApiError) || !e.field?.startsWith(`shields.${name}`)) return undefined;
    const line = /\[(\d+)\]$/.exec(e.field);
    if (!line) return e.message;
    // the API's message starts with the field it names; the line number says it here
    const message = e.message.replace(/^shields\.\w+\[\d+\]: /i, '');
    return t('shieldLineError', { line: Number(line[1]) + 1, message });
  };
  const excluded = counts.data?.excluded;
  return (
    <form class="form-narrow" onSubmit={save.submit}>
      <p class="muted">{t('shieldsIntro')}</p>
      {excluded && (
        <p role="status" class="shield-counts">
          {t('shieldsExcluded', {
            today: formatNumber(excluded.today.total),
            month: formatNumber(excluded.last_30_days.total),
          })}
          {excluded.last_30_days.total > 0 && (
            <span class="muted">
              {' '}
              {t('shieldsByKind', {
                ips: formatNumber(excluded.last_30_days.by_kind.ip),
                countries: formatNumber(excluded.last_30_days.by_kind.country),
                pages: formatNumber(excluded.last_30_days.by_kind.page),
                hostnames: formatNumber(excluded.last_30_days.by_kind.hostname),
              })}
            </span>
          )}
        </p>
      )}
      <ErrorNote error={counts.error} />
      {LISTS.map((l) => (
        <Field key={l.name} label={l.label} hint={l.hint} error={errorOf(l.name)}>
          {(id, d) => (
            <textarea
              id={id}
              aria-describedby={d}
              rows={3}
              spellcheck={false}
              placeholder={l.placeholder}
              value={texts[l.name]}
              onInput={(e) => {
                setSaved(false);
                setTexts({ ...texts, [l.name]: e.currentTarget.value });
              }}
            />
          )}
        </Field>
      ))}
      <ErrorNote error={LISTS.some((l) => errorOf(l.name)) ? undefined : save.error} />
      {saved && <p role="status">{t('shieldsSaved')}</p>}
      <button class="button" type="submit" disabled={save.busy}>
        {t('saveShields')}
      </button>
    </form>
  );
}
