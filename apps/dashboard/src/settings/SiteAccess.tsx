import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ErrorNote } from '../components/ui.tsx';
import { useSubmit } from '../components/use-submit.ts';
import { t } from '../i18n/connections.ts';
import { SitesChooser } from './SitesChooser.tsx';

/** Which sites a viewer sees: all of them (also those added later) or a chosen set. */
export function SiteAccess(props: { access: Schema<'ViewerAccess'>; sites: Schema<'Site'>[] }) {
  const { access } = props;
  const [all, setAll] = useState(access.sites === 'all');
  const [chosen, setChosen] = useState<ReadonlySet<string>>(
    new Set(access.sites === 'all' ? [] : access.sites),
  );
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
  return (
    <SitesChooser
      name={`access-${access.person_id}`}
      legend={t('sitesSeenBy', { email: access.email })}
      sites={props.sites}
      all={all}
      chosen={chosen}
      onChange={(nextAll, nextChosen) => {
        setAll(nextAll);
        setChosen(nextChosen);
        setSaved(false);
      }}
    >
      <div class="row">
        <button type="button" class="button small" disabled={save.busy} onClick={() => save.submit()}>
          {t('saveSitesOf', { email: access.email })}
        </button>
        {saved && <span role="status">{t('saved')}</span>}
      </div>
      <ErrorNote error={save.error} />
    </SitesChooser>
  );
}
