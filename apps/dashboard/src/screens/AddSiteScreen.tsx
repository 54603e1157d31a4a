import { useState } from 'preact/hooks';
import { api, unwrap } from '../api/client.ts';
import { ErrorNote, Link } from '../components/ui.tsx';
import { useSubmit } from '../components/use-submit.ts';
import { t } from '../i18n/auth.ts';
import { navigate } from '../router.ts';
import { localZone, SiteFields, type SiteForm } from '../sites/SiteFields.tsx';

/** Add a site: its domain (a pasted URL is reduced to it), zone, currency and privacy choices. */
export function AddSiteScreen() {
  const [form, setForm] = useState<SiteForm>({
    domain: '',
    timezone: localZone(),
    currency: 'USD',
    cookieless: false,
    city_recording: false,
    icon: '',
    colour: '',
    retention_days: '',
    umami_website_id: '',
  });
  const submit = useSubmit(async () => {
    const { site } = await unwrap(
      api.POST('/api/v1/sites', {
        body: {
          domain: form.domain.trim(),
          timezone: form.timezone,
          currency: form.currency,
          cookieless: form.cookieless,
          city_recording: form.city_recording,
        },
      }),
    );
    navigate(`/sites/${site.id}`);
  });
  return (
    <main class="page" id="main" tabIndex={-1}>
      <div class="page-head">
        <h1>{t('addSite')}</h1>
        <Link href="/sites">{t('backToSites')}</Link>
      </div>
      <form class="card form-narrow" onSubmit={submit.submit}>
        <SiteFields form={form} set={(patch) => setForm({ ...form, ...patch })} errorOf={submit.fieldError} />
        <ErrorNote error={submit.formError('domain', 'timezone', 'currency')} />
        <button class="button" type="submit" disabled={submit.busy}>
          {t('addTheSite')}
        </button>
      </form>
    </main>
  );
}
