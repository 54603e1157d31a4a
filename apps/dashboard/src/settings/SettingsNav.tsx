import { Link } from '../components/ui.tsx';
import { t } from '../i18n/account.ts';
import { route } from '../router.ts';

const PAGES: [string, string][] = [
  ['/settings/people', t('people')],
  ['/settings/keys', t('apiKeys')],
  ['/settings/data-requests', t('dataRequests')],
];

/** The instance's settings (owners): people and their sites, API keys, data requests. Site settings live with each site. */
export function SettingsNav() {
  const path = route.value.path === '/settings' ? '/settings/people' : route.value.path;
  return (
    <nav class="settings-nav" aria-label={t('settings')}>
      {PAGES.map(([href, label]) => (
        <Link key={href} href={href} aria-current={path === href ? 'page' : undefined}>
          {label}
        </Link>
      ))}
    </nav>
  );
}
