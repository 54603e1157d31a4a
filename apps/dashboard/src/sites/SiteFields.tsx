import { Field } from '../components/ui.tsx';
import { t } from '../i18n/sites.ts';
import { session } from '../session.ts';

export interface SiteForm {
  domain: string;
  timezone: string;
  currency: string;
  cookieless: boolean;
  city_recording: boolean;
  icon: string;
  colour: string;
  /** days of visits kept, as typed; empty follows the instance (settings only) */
  retention_days: string;
  /** the site's website id in Umami, as typed; empty for none (settings only) */
  umami_website_id: string;
}

const zones = (): string[] => {
  const list = Intl.supportedValuesOf?.('timeZone') ?? [];
  return list.includes('UTC') ? list : ['UTC', ...list];
};
const currencies = (): string[] => Intl.supportedValuesOf?.('currency') ?? ['USD', 'EUR', 'GBP'];

/** examples in the empty fields: addresses and ids, the same in every language */
const EXAMPLE_DOMAIN = 'example.com';
const EXAMPLE_UMAMI_ID = '4fb7fa4c-5b46-438d-94b3-3a8fb9bc2e8b';
const EXAMPLE_ICON = 'https://example.com/favicon.ico';

/** What an empty retention means on this instance, and what a number does. */
function retentionHint(): string {
  const instance = session.value?.instance.retention_days ?? null;
  return instance === null ? t('retentionKeepsAll') : t('retentionFollows', { count: instance });
}

/** The browser's own time zone: the likely zone of a new site. */
export function localZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/**
 * A site's fields, shared by Add a site and the site's settings. `errorOf(field)` is the API's
 * message when it named that field. `full` adds the icon and colour (settings only).
 */
export function SiteFields(props: {
  form: SiteForm;
  set: (patch: Partial<SiteForm>) => void;
  errorOf: (field: string) => string | undefined;
  full?: boolean;
}) {
  const { form, set, errorOf } = props;
  return (
    <>
      <Field label={t('domain')} hint={t('domainHint')} error={errorOf('domain')}>
        {(id, d) => (
          <input
            id={id}
            aria-describedby={d}
            required
            placeholder={EXAMPLE_DOMAIN}
            autocomplete="off"
            spellcheck={false}
            value={form.domain}
            onInput={(e) => set({ domain: e.currentTarget.value })}
          />
        )}
      </Field>
      <Field label={t('timeZone')} hint={t('timeZoneHint')} error={errorOf('timezone')}>
        {(id, d) => (
          <select
            id={id}
            aria-describedby={d}
            value={form.timezone}
            onChange={(e) => set({ timezone: e.currentTarget.value })}
          >
            {[...new Set([form.timezone, ...zones()])].map((z) => (
              <option key={z} value={z}>
                {z}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label={t('currency')} hint={t('currencyHint')} error={errorOf('currency')}>
        {(id, d) => (
          <select
            id={id}
            aria-describedby={d}
            value={form.currency}
            onChange={(e) => set({ currency: e.currentTarget.value })}
          >
            {[...new Set([form.currency, ...currencies()])].map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        )}
      </Field>
      <label class="check">
        <input
          type="checkbox"
          checked={form.cookieless}
          onChange={(e) => set({ cookieless: e.currentTarget.checked })}
        />
        <span>
          {t('cookieless')}
          <span class="hint muted"> {t('cookielessHint')}</span>
        </span>
      </label>
      <label class="check">
        <input
          type="checkbox"
          checked={form.city_recording}
          onChange={(e) => set({ city_recording: e.currentTarget.checked })}
        />
        <span>
          {t('recordCities')}
          <span class="hint muted"> {t('recordCitiesHint')}</span>
        </span>
      </label>
      {props.full && (
        <>
          <Field label={t('keepVisitsFor')} hint={retentionHint()} error={errorOf('retention_days')}>
            {(id, d) => (
              <div class="row">
                <input
                  id={id}
                  aria-describedby={d}
                  type="number"
                  inputMode="numeric"
                  min={30}
                  max={36500}
                  step={1}
                  class="input-short"
                  placeholder={String(session.value?.instance.retention_days ?? '')}
                  value={form.retention_days}
                  onInput={(e) => set({ retention_days: e.currentTarget.value })}
                />
                <span>{t('days')}</span>
              </div>
            )}
          </Field>
          <Field label={t('umamiWebsiteId')} hint={t('umamiHint')} error={errorOf('umami_website_id')}>
            {(id, d) => (
              <input
                id={id}
                aria-describedby={d}
                placeholder={EXAMPLE_UMAMI_ID}
                autocomplete="off"
                spellcheck={false}
                value={form.umami_website_id}
                onInput={(e) => set({ umami_website_id: e.currentTarget.value })}
              />
            )}
          </Field>
          <Field label={t('icon')} hint={t('iconHint')} error={errorOf('icon')}>
            {(id, d) => (
              <input
                id={id}
                aria-describedby={d}
                type="url"
                placeholder={EXAMPLE_ICON}
                value={form.icon}
                onInput={(e) => set({ icon: e.currentTarget.value })}
              />
            )}
          </Field>
          <Field label={t('colour')} error={errorOf('colour')}>
            {(id, d) => (
              <div class="row">
                <input
                  id={id}
                  aria-describedby={d}
                  type="color"
                  value={form.colour || '#4f46e5'}
                  onInput={(e) => set({ colour: e.currentTarget.value })}
                />
                {form.colour && (
                  <button type="button" class="link-button" onClick={() => set({ colour: '' })}>
                    {t('noColour')}
                  </button>
                )}
              </div>
            )}
          </Field>
        </>
      )}
    </>
  );
}
