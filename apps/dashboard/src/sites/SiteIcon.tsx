import { t } from '../i18n/sites.ts';

/**
 * A site's icon: the owner's own image when set, else its favicon as the server fetched it (`src`,
 * never the site itself), else a dot in its colour with its first letter.
 */
export function SiteIcon(props: {
  domain: string;
  icon: string | null;
  colour: string | null;
  favicon?: string;
}) {
  const src = props.icon ?? props.favicon;
  if (src) return <img class="site-icon" src={src} alt="" width={20} height={20} loading="lazy" />;
  return (
    <span
      class="site-icon letter"
      aria-hidden="true"
      style={props.colour ? { background: props.colour } : undefined}
    >
      {props.domain.charAt(0).toUpperCase()}
    </span>
  );
}

/** Said wherever a site is listed or shared (spec: a site's cookieless mode is listed there). */
export function CookielessBadge() {
  return (
    <span class="badge quiet" title={t('cookielessTitle')}>
      {t('cookieless')}
    </span>
  );
}
