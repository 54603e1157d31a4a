import type { ComponentChildren } from 'preact';
import type { Schema } from '../api/client.ts';
import { t } from '../i18n/account.ts';

/**
 * Every site (also those added later) or a chosen set: the radio pair and the site checkboxes a
 * viewer's access and an API key's sites are chosen with.
 */
export function SitesChooser(props: {
  /** the radio group's name, unique on the page */
  name: string;
  legend: string;
  sites: Schema<'Site'>[];
  all: boolean;
  chosen: ReadonlySet<string>;
  onChange: (all: boolean, chosen: ReadonlySet<string>) => void;
  /** shown under the choices, inside the group (a save button) */
  children?: ComponentChildren;
}) {
  const { all, chosen } = props;
  return (
    <fieldset class="site-access">
      <legend>{props.legend}</legend>
      <label class="check">
        <input type="radio" name={props.name} checked={all} onChange={() => props.onChange(true, chosen)} />
        <span>{t('everySiteLater')}</span>
      </label>
      <label class="check">
        <input type="radio" name={props.name} checked={!all} onChange={() => props.onChange(false, chosen)} />
        <span>{t('onlyThese')}</span>
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
                props.onChange(false, next);
              }}
            />
            <span>{s.domain}</span>
          </label>
        ))}
      </div>
      {props.children}
    </fieldset>
  );
}
