import { CopyButton } from '../components/ui.tsx';
import { t } from '../i18n/sites.ts';

/**
 * The "don't count me" link for the owner's own browsers: a page of the site opened with
 * `?footfall_ignore=1` marks that browser, and its tracker sends nothing until `=0`
 * (packages/tracker/README.md, "Privacy and consent").
 */
export function IgnoreMyVisits(props: { domain: string }) {
  const mark = `https://${props.domain}/?footfall_ignore=1`;
  const unmark = `https://${props.domain}/?footfall_ignore=0`;
  return (
    <div class="stack">
      <p>{t.rich('ignoreIntro', { link: <a href={unmark}>{t('ignoreUnmarkLink')}</a> })}</p>
      <code class="code-box">{mark}</code>
      <div class="row">
        <a class="button secondary" href={mark} target="_blank" rel="noopener noreferrer">
          {t('openInBrowser')}
        </a>
        <CopyButton text={mark} label={t('copyLink')} />
      </div>
    </div>
  );
}
