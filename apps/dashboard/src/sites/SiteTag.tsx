import { useState } from 'preact/hooks';
import type { Schema } from '../api/client.ts';
import { CopyButton } from '../components/ui.tsx';
import { formatDateTime } from '../i18n/format.ts';
import { t } from '../i18n/report.ts';
import { t as ts } from '../i18n/siteSettings.ts';

/** The tag for the `<head>` of every page of the site, from this Footfall's own address. */
export function scriptTag(site: string, forms = false): string {
  const addons = forms ? '?addons=forms' : ''; // not text
  return `<script defer src="${window.location.origin}/js/${site}.js${addons}"></script>`; // not text
}

/** The tag to copy, with the forms add-on as a choice (the install screen and Site settings). */
export function SiteTag(props: { site: string }) {
  const [forms, setForms] = useState(false);
  const tag = scriptTag(props.site, forms);
  return (
    <>
      <code class="code-box" id="script-tag">
        {tag}
      </code>
      <label class="check">
        <input type="checkbox" checked={forms} onChange={(e) => setForms(e.currentTarget.checked)} />{' '}
        {t('countForms')}
      </label>
      <div class="row">
        <CopyButton text={tag} label={t('copyTag')} />
        <span class="muted">{t('tagAbout')}</span>
      </div>
    </>
  );
}

/**
 * What the daily install check last saw on the homepage (docs/alerts.md), for Site settings: a
 * homepage it cannot read (a login, a bot wall) is said here, not as a stop, while visits arrive.
 */
export function InstallCheckNote(props: {
  domain: string;
  check: Schema<'SiteStatus'>['install_check'] | undefined;
}) {
  const { check, domain } = props;
  if (check === undefined) return null;
  if (check === null) return <p class="muted">{ts('tagCheckNone')}</p>;
  const when = formatDateTime(check.checked_at);
  if (check.tracker === 'found') return <p class="muted">{ts('tagCheckFound', { domain, when })}</p>;
  if (check.tracker === 'missing') {
    return (
      <p class="notice" role="status">
        {ts('tagCheckMissing', { domain, when })}
      </p>
    );
  }
  return (
    <p class="notice" role="status">
      {ts('tagCheckUnread', { domain, when, detail: check.detail ?? t('noAnswer') })}
    </p>
  );
}
