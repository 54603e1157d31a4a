import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ErrorNote, Field, Link, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';
import { t } from '../i18n/siteSettings.ts';
import { navigate } from '../router.ts';
import { IgnoreMyVisits } from '../sites/IgnoreMyVisits.tsx';
import { ProxyKey } from '../sites/ProxyKey.tsx';
import { SiteFields, type SiteForm } from '../sites/SiteFields.tsx';
import { InstallCheckNote, SiteTag } from '../sites/SiteTag.tsx';
import { AlertSettings } from './AlertSettings.tsx';
import { ConsentBarSettings } from './ConsentBarSettings.tsx';
import { FunnelSettings } from './FunnelSettings.tsx';
import { GoalSettings } from './GoalSettings.tsx';
import { ImportSettings } from './ImportSettings.tsx';
import { MilestoneSettings } from './MilestoneSettings.tsx';
import { PaymentConnections } from './PaymentConnections.tsx';
import { SearchConsoleSettings } from './SearchConsoleSettings.tsx';
import { ShareSettings } from './ShareSettings.tsx';
import { ShieldSettings } from './ShieldSettings.tsx';

const formOf = (s: Schema<'Site'>): SiteForm => ({
  domain: s.domain,
  timezone: s.timezone,
  currency: s.currency,
  cookieless: s.cookieless,
  city_recording: s.city_recording,
  icon: s.icon ?? '',
  colour: s.colour ?? '',
  retention_days: s.retention_days === null ? '' : String(s.retention_days),
  umami_website_id: s.umami_website_id ?? '',
});

/** The value the API takes for a changed field: empty texts are null, days a number. */
function bodyValue(key: keyof SiteForm, value: SiteForm[keyof SiteForm]): unknown {
  if (key === 'retention_days') return value === '' ? null : Number(value);
  return (key === 'icon' || key === 'colour' || key === 'umami_website_id') && value === '' ? null : value;
}

function GeneralSettings(props: { site: Schema<'Site'>; onSaved: (s: Schema<'Site'>) => void }) {
  const [form, setForm] = useState(formOf(props.site));
  const [saved, setSaved] = useState(false);
  const save = useSubmit(async () => {
    setSaved(false);
    const before = formOf(props.site);
    const body: Record<string, unknown> = {};
    for (const key of Object.keys(form) as (keyof SiteForm)[]) {
      if (form[key] === before[key]) continue;
      body[key] = bodyValue(key, form[key]);
    }
    const answer = await unwrap(
      api.PATCH('/api/v1/sites/{site}', { params: { path: { site: props.site.id } }, body }),
    );
    setSaved(true);
    props.onSaved(answer.site);
  });
  return (
    <form class="form-narrow" onSubmit={save.submit}>
      <SiteFields
        form={form}
        set={(patch) => {
          setSaved(false);
          setForm({ ...form, ...patch });
        }}
        errorOf={save.fieldError}
        full
      />
      <ErrorNote
        error={save.formError(
          'domain',
          'timezone',
          'currency',
          'icon',
          'colour',
          'retention_days',
          'umami_website_id',
        )}
      />
      {saved && <p role="status">{t('saved')}</p>}
      <button class="button" type="submit" disabled={save.busy}>
        {t('save')}
      </button>
    </form>
  );
}

type ModuleName = keyof Schema<'SiteModules'>;
const MODULES: { id: ModuleName; name: string; what: string }[] = [
  { id: 'notes', name: t('notes'), what: t('notesWhat') },
  { id: 'goals', name: t('goals'), what: t('goalsWhat') },
  { id: 'funnels', name: t('funnels'), what: t('funnelsWhat') },
  { id: 'revenue', name: t('revenue'), what: t('revenueWhat') },
  { id: 'retention', name: t('retention'), what: t('retentionWhat') },
  { id: 'vitals', name: t('vitals'), what: t('vitalsWhat') },
  { id: 'crawlers', name: t('crawlers'), what: t('crawlersWhat') },
  { id: 'milestones', name: t('milestones'), what: t('milestonesWhat') },
  { id: 'shares', name: t('shareLinks'), what: t('shareLinksWhat') },
];

/** The modules of a site, each switched on or off at once; one off leaves the dashboard. */
function ModuleSettings(props: { site: Schema<'Site'>; onSaved: (s: Schema<'Site'>) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  // the box follows the click at once, and goes back if the change is refused
  const [shown, setShown] = useState(props.site.modules);
  const change = async (id: ModuleName, on: boolean) => {
    setBusy(true);
    setError(undefined);
    const before = shown;
    setShown({ ...shown, [id]: on });
    try {
      const answer = await unwrap(
        api.PATCH('/api/v1/sites/{site}', {
          params: { path: { site: props.site.id } },
          body: { modules: { [id]: on } },
        }),
      );
      props.onSaved(answer.site);
    } catch (e) {
      setShown(before);
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <fieldset class="stack module-settings">
      <legend class="visually-hidden">{t('modulesOf', { domain: props.site.domain })}</legend>
      <p class="muted">{t('modulesIntro')}</p>
      {MODULES.map((m) => (
        <label class="check" key={m.id}>
          <input
            type="checkbox"
            checked={shown[m.id]}
            disabled={busy}
            onChange={(e) => change(m.id, e.currentTarget.checked)}
          />
          <span>
            <strong>{m.name}</strong> — {m.what}
          </span>
        </label>
      ))}
      <ErrorNote error={error} />
    </fieldset>
  );
}

function DeleteSite({ site }: { site: Schema<'Site'> }) {
  const [typed, setTyped] = useState('');
  const remove = useSubmit(async () => {
    await unwrap(api.DELETE('/api/v1/sites/{site}', { params: { path: { site: site.id } } }));
    navigate('/sites', { replace: true });
  });
  return (
    <form class="form-narrow" onSubmit={remove.submit}>
      <p>{t('deleteSiteWarning')}</p>
      <Field label={t('typeToConfirm', { domain: site.domain })}>
        {(id) => (
          <input
            id={id}
            autocomplete="off"
            spellcheck={false}
            value={typed}
            onInput={(e) => setTyped(e.currentTarget.value)}
          />
        )}
      </Field>
      <ErrorNote error={remove.error} />
      <button
        class="button danger"
        type="submit"
        disabled={remove.busy || typed.trim().toLowerCase() !== site.domain}
      >
        {t('deleteSiteAndAnalytics', { domain: site.domain })}
      </button>
    </form>
  );
}

/** A site's settings (owners): its fields, the consent bar, the proxy key, deleting it. */
export function SiteSettingsScreen(props: { site: string }) {
  const data = useLoad(
    (signal) => unwrap(api.GET('/api/v1/sites/{site}', { signal, params: { path: { site: props.site } } })),
    [props.site],
  );
  const status = useLoad(
    (signal) =>
      unwrap(api.GET('/api/v1/sites/{site}/status', { signal, params: { path: { site: props.site } } })),
    [props.site],
  );
  const [site, setSite] = useState<Schema<'Site'>>();
  const current = site ?? data.data?.site;
  if (data.error)
    return (
      <main class="page" id="main" tabIndex={-1}>
        <ErrorNote error={data.error} />
      </main>
    );
  if (!current)
    return (
      <main class="page" id="main" tabIndex={-1}>
        <Spinner />
      </main>
    );
  return (
    <main class="page" id="main" tabIndex={-1}>
      <div class="page-head">
        <h1>{t('settingsOf', { domain: current.domain })}</h1>
        <Link href={`/sites/${current.id}`}>{t('backToReport')}</Link>
      </div>
      <section class="section card" aria-labelledby="general">
        <h2 id="general">{t('headingSite')}</h2>
        <GeneralSettings key={current.id} site={current} onSaved={setSite} />
      </section>
      <section class="section card" aria-labelledby="tag" id="tag-section">
        <h2 id="tag">{t('headingTag')}</h2>
        <div class="stack">
          <SiteTag site={current.id} />
          <InstallCheckNote domain={current.domain} check={status.data?.install_check} />
        </div>
      </section>
      <section class="section card" aria-labelledby="consent">
        <h2 id="consent">{t('headingConsentBar')}</h2>
        <ConsentBarSettings site={current} onSaved={setSite} />
      </section>
      <section class="section card" aria-labelledby="ignore">
        <h2 id="ignore">{t('headingOwnVisits')}</h2>
        <IgnoreMyVisits domain={current.domain} />
      </section>
      <section class="section card" aria-labelledby="shields-heading" id="shields">
        <h2 id="shields-heading">{t('headingShields')}</h2>
        <ShieldSettings key={current.id} site={current} onSaved={setSite} />
      </section>
      <section class="section card" aria-labelledby="proxy">
        <h2 id="proxy">{t('headingProxyKey')}</h2>
        <p class="muted">{t('proxyKeyIntro')}</p>
        <ProxyKey site={current} onRotated={setSite} />
      </section>
      <section class="section card" aria-labelledby="modules">
        <h2 id="modules">{t('headingModules')}</h2>
        <ModuleSettings site={current} onSaved={setSite} />
      </section>
      {current.modules.goals && (
        <section class="section card" aria-labelledby="goals-heading" id="goals">
          <h2 id="goals-heading">{t('goals')}</h2>
          <GoalSettings site={current.id} />
        </section>
      )}
      {current.modules.funnels && (
        <section class="section card" aria-labelledby="funnels-heading" id="funnels">
          <h2 id="funnels-heading">{t('funnels')}</h2>
          <FunnelSettings site={current.id} />
        </section>
      )}
      {current.modules.revenue && (
        <section class="section card" aria-labelledby="payments">
          <h2 id="payments">{t('headingPayments')}</h2>
          <PaymentConnections site={current.id} />
        </section>
      )}
      {current.modules.crawlers && (
        <section class="section card" aria-labelledby="search-console-heading" id="search-console">
          <h2 id="search-console-heading">Search Console</h2>
          <SearchConsoleSettings site={current.id} />
        </section>
      )}
      {current.modules.milestones && (
        <section class="section card" aria-labelledby="milestones-heading" id="milestones">
          <h2 id="milestones-heading">{t('milestones')}</h2>
          <MilestoneSettings site={current.id} />
        </section>
      )}
      {current.modules.shares && (
        <section class="section card" aria-labelledby="shares-heading" id="shares">
          <h2 id="shares-heading">{t('shareLinks')}</h2>
          <ShareSettings site={current.id} />
        </section>
      )}
      <section class="section card" aria-labelledby="imports-heading" id="imports">
        <h2 id="imports-heading">{t('headingImports')}</h2>
        <ImportSettings site={current.id} />
      </section>
      <section class="section card" aria-labelledby="alerts-heading" id="alerts">
        <h2 id="alerts-heading">{t('headingAlerts')}</h2>
        <AlertSettings site={current.id} />
      </section>
      <section class="section card danger-zone" aria-labelledby="delete">
        <h2 id="delete">{t('headingDeleteSite')}</h2>
        <DeleteSite site={current} />
      </section>
    </main>
  );
}
