import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ErrorNote } from '../components/ui.tsx';
import { useSubmit } from '../components/use-submit.ts';

/** Which sites a viewer sees: all of them (also those added later) or a chosen set. */
export function SiteAccess(props: { access: Schema<'ViewerAccess'>; sites: Schema<'Site'>[] }) {
  const { access } = props;
  const [all, setAll] = useState(access.sites === 'all');
  const [chosen, setChosen] = useState(new Set(access.sites === 'all' ? [] : access.sites));
  const [saved, setSaved] = useState(false);
  const save = useSubmit(async () => {
    await unwrap(
      api.PUT('/api/v1/site-access/{id}', {
        params: { path: { id: access.person_id } },
        body: { sites: all ? 'all' : [...chosen] },
      }),
    );
    setSaved(true);
  });
  const name = `access-${access.person_id}`;
  return (
    <fieldset class="site-access">
      <legend>Sites {access.email} sees</legend>
      <label class="check">
        <input
          type="radio"
          name={name}
          checked={all}
          onChange={() => {
            setAll(true);
            setSaved(false);
          }}
        />
        <span>Every site, also those added later</span>
      </label>
      <label class="check">
        <input
          type="radio"
          name={name}
          checked={!all}
          onChange={() => {
            setAll(false);
            setSaved(false);
          }}
        />
        <span>Only these:</span>
      </label>
      <div class="site-choices">
        {props.sites.map((s) => (
          <label class="check" key={s.id}>
            <input
              type="checkbox"
              disabled={all}
              checked={!all && chosen.has(s.id)}
              onChange={(e) => {
                const next = new Set(chosen);
                if (e.currentTarget.checked) next.add(s.id);
                else next.delete(s.id);
                setChosen(next);
                setSaved(false);
              }}
            />
            <span>{s.domain}</span>
          </label>
        ))}
      </div>
      <div class="row">
        <button type="button" class="button small" disabled={save.busy} onClick={() => save.submit()}>
          Save the sites of {access.email}
        </button>
        {saved && <span role="status">Saved.</span>}
      </div>
      <ErrorNote error={save.error} />
    </fieldset>
  );
}
