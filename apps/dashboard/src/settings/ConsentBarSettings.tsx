import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ErrorNote, Field, InputField } from '../components/ui.tsx';
import { useSubmit } from '../components/use-submit.ts';

/** What the API uses for a field left empty (packages/control/src/consent-bar.ts). */
const DEFAULT_TEXT =
  'May we count your visit? Our analytics are privacy-friendly: no ads, no tracking across sites.';
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
          Show Footfall's consent bar
          <span class="hint muted">
            {' '}
            — visitors are counted only after they accept, and never after they decline. Leave it off if your
            site has its own consent manager (call <code>footfall('consent', true)</code> from it).
          </span>
        </span>
      </label>
      <Field
        label="Text"
        hint="Up to 300 characters; empty for the default."
        error={save.fieldError('consent_text')}
      >
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
          label="Bar colour"
          error={save.fieldError('consent_background')}
          type="color"
          value={background}
          onValue={setBackground}
        />
        <InputField
          label="Text colour"
          error={save.fieldError('consent_foreground')}
          type="color"
          value={foreground}
          onValue={setForeground}
        />
      </div>
      <div
        class="consent-preview"
        style={{ background, color: foreground }}
        aria-label="Preview of the bar"
        role="img"
      >
        <span>{text.trim() || DEFAULT_TEXT}</span>
        <span class="consent-preview-buttons" aria-hidden="true">
          <span style={{ borderColor: foreground }}>Decline</span>
          <span style={{ background: foreground, color: background }}>Accept</span>
        </span>
      </div>
      <ErrorNote error={save.formError('consent_text', 'consent_background', 'consent_foreground')} />
      {saved && (
        <p role="status">
          Saved. Browsers that already hold the site's script get the new one within the hour.
        </p>
      )}
      <button class="button" type="submit" disabled={save.busy}>
        Save the consent bar
      </button>
    </form>
  );
}
