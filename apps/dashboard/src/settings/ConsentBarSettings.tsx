import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ErrorNote, Field, InputField } from '../components/ui.tsx';
import { useSubmit } from '../components/use-submit.ts';
import { t } from '../i18n/siteSettings.ts';

/**
 * What the API uses for a field left empty (packages/control/src/consent-bar.ts), and the bar's
 * buttons as the tracker draws them (packages/tracker/src/browser/consent-bar.ts). The bar speaks
 * English to visitors whatever the dashboard's language, so the preview shows these as they are.
 */
const DEFAULT_TEXT =
  'May we count your visit? Our analytics are privacy-friendly: no ads, no tracking across sites.'; // not text
const DECLINE = 'Decline'; // not text
const ACCEPT = 'Accept'; // not text
const DEFAULT_BACKGROUND = '#1f2937';
const DEFAULT_FOREGROUND = '#ffffff';

/**
 * Footfall's own consent bar for a site: on or off, its text and colours, with a preview. The
 * API refuses colours that do not read on each other and says which.
 */
export function ConsentBarSettings(props: { site: Schema<'Site'>; onSaved: (site: Schema<'Site'>) => void }) {
  const { site } = props;
  const [on, setOn] = useState(site.consent_bar);
  const [text, setText] = useState(site.consent_text ?? '');
  const [background, setBackground] = useState(site.consent_background ?? DEFAULT_BACKGROUND);
  const [foreground, setForeground] = useState(site.consent_foreground ?? DEFAULT_FOREGROUND);
  const [saved, setSaved] = useState(false);
  const save = useSubmit(async () => {
    setSaved(false);
    const answer = await unwrap(
      api.PATCH('/api/v1/sites/{site}', {
        params: { path: { site: site.id } },
        body: {
          consent_bar: on,
          consent_text: text.trim() || null,
          consent_background: background,
          consent_foreground: foreground,
        },
      }),
    );
    setSaved(true);
    props.onSaved(answer.site);
  });
  return (
    <form class="form-narrow" onSubmit={save.submit}>
      <label class="check">
        <input type="checkbox" checked={on} onChange={(e) => setOn(e.currentTarget.checked)} />
        <span>
          {t('showConsentBar')}
          <span class="hint muted">
            {' '}
            {t.rich('consentBarHint', { code: <code>{"footfall('consent', true)"}</code> })}
          </span>
        </span>
      </label>
      <Field label={t('consentText')} hint={t('consentTextHint')} error={save.fieldError('consent_text')}>
        {(id, d) => (
          <textarea
            id={id}
            aria-describedby={d}
            maxLength={300}
            rows={3}
            placeholder={DEFAULT_TEXT}
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
          />
        )}
      </Field>
      <div class="row">
        <InputField
          label={t('barColour')}
          error={save.fieldError('consent_background')}
          type="color"
          value={background}
          onValue={setBackground}
        />
        <InputField
          label={t('textColour')}
          error={save.fieldError('consent_foreground')}
          type="color"
          value={foreground}
          onValue={setForeground}
        />
      </div>
      <div
        class="consent-preview"
        style={{ background, color: foreground }}
        aria-label={t('barPreview')}
        role="img"
      >
        <span>{text.trim() || DEFAULT_TEXT}</span>
        <span class="consent-preview-buttons" aria-hidden="true">
          <span style={{ borderColor: foreground }}>{DECLINE}</span>
          <span style={{ background: foreground, color: background }}>{ACCEPT}</span>
        </span>
      </div>
      <ErrorNote error={save.formError('consent_text', 'consent_background', 'consent_foreground')} />
      {saved && <p role="status">{t('consentSaved')}</p>}
      <button class="button" type="submit" disabled={save.busy}>
        {t('saveConsentBar')}
      </button>
    </form>
  );
}
