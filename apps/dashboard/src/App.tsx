import type { VNode } from 'preact';
import { useEffect } from 'preact/hooks';
import { Layout } from './components/Layout.tsx';
import { lazyScreen } from './components/lazy.tsx';
import { ErrorNote, Link, Spinner } from './components/ui.tsx';
import { t } from './i18n/common.ts';
import { navigate, route } from './router.ts';
import { SignInScreen } from './screens/SignInScreen.tsx';
import { SitesScreen } from './screens/SitesScreen.tsx';
import { isOwner, session, sessionError } from './session.ts';
import { SiteScreen } from './site/SiteScreen.tsx';

// Screens away from the first view load on demand (each is its own file in the build).
// set-up and a forced new password come once in a person's life: not worth the first view's bytes
const SetupScreen = lazyScreen(() => import('./screens/SetupScreen.tsx'), 'SetupScreen');
const NewPasswordScreen = lazyScreen(() => import('./screens/NewPasswordScreen.tsx'), 'NewPasswordScreen');
const AddSiteScreen = lazyScreen(() => import('./screens/AddSiteScreen.tsx'), 'AddSiteScreen');
const SiteSettingsScreen = lazyScreen<{ site: string }>(
  () => import('./settings/SiteSettingsScreen.tsx'),
  'SiteSettingsScreen',
);
const PeopleScreen = lazyScreen(() => import('./settings/PeopleScreen.tsx'), 'PeopleScreen');
const ApiKeysScreen = lazyScreen(() => import('./settings/ApiKeysScreen.tsx'), 'ApiKeysScreen');
const DataRequestsScreen = lazyScreen(
  () => import('./settings/DataRequestsScreen.tsx'),
  'DataRequestsScreen',
);
const AccountScreen = lazyScreen(() => import('./settings/AccountScreen.tsx'), 'AccountScreen');
const AllSitesScreen = lazyScreen(() => import('./screens/AllSitesScreen.tsx'), 'AllSitesScreen');
const HealthScreen = lazyScreen(() => import('./screens/HealthScreen.tsx'), 'HealthScreen');
const ShareScreen = lazyScreen<{ token: string }>(() => import('./share/ShareScreen.tsx'), 'ShareScreen');

interface Route {
  path: RegExp;
  /** owners only: viewers are shown that the page is not theirs */
  owner?: boolean;
  title: string;
  render: (match: string[]) => VNode;
}

/** Every screen of the signed-in dashboard, by path. */
const ROUTES: Route[] = [
  { path: /^\/(sites)?$/, title: t('titleSites'), render: () => <SitesScreen /> },
  { path: /^\/all$/, title: t('titleAllSites'), render: () => <AllSitesScreen /> },
  { path: /^\/sites\/new$/, owner: true, title: t('titleAddSite'), render: () => <AddSiteScreen /> },
  {
    path: /^\/sites\/([^/]+)\/settings$/,
    owner: true,
    title: t('titleSiteSettings'),
    render: (m) => <SiteSettingsScreen site={m[1]!} />,
  },
  {
    path: /^\/sites\/([^/]+)(\/live)?$/,
    title: t('titleSite'),
    render: (m) => <SiteScreen site={m[1]!} live={!!m[2]} />,
  },
  { path: /^\/settings(\/people)?$/, owner: true, title: t('titlePeople'), render: () => <PeopleScreen /> },
  { path: /^\/settings\/keys$/, owner: true, title: t('titleApiKeys'), render: () => <ApiKeysScreen /> },
  {
    path: /^\/settings\/data-requests$/,
    owner: true,
    title: t('titleDataRequests'),
    render: () => <DataRequestsScreen />,
  },
  { path: /^\/account$/, title: t('titleAccount'), render: () => <AccountScreen /> },
  { path: /^\/health$/, title: t('titleHealth'), render: () => <HealthScreen /> },
];

function NotFoundScreen() {
  return (
    <main class="page" id="main" tabIndex={-1}>
      <h1>{t('nothingHere')}</h1>
      <p>{t('notShared')}</p>
      <Link href="/">{t('backToSites')}</Link>
    </main>
  );
}

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return <Spinner />;
}

/** Which screen the URL names, for whom: the sign-in screens, a forced password, or the app. */
export function App() {
  const { path, search } = route.value;
  const who = session.value;
  if (path === '/setup') return <SetupScreen />;
  // a shared dashboard needs nobody signed in
  const shared = /^\/share\/(ffsh_[\w-]+)$/.exec(path);
  if (shared) return <ShareScreen token={shared[1]!} />;
  if (who === undefined) {
    return sessionError.value ? (
      <main class="auth" id="main" tabIndex={-1}>
        <div class="auth-card">
          <ErrorNote error={sessionError.value} />
          <button class="button" type="button" onClick={() => window.location.reload()}>
            {t('tryAgain')}
          </button>
        </div>
      </main>
    ) : (
      <Spinner />
    );
  }
  if (path === '/login') {
    return who ? <Redirect to="/" /> : <SignInScreen />;
  }
  if (who === null) return <Redirect to={`/login?next=${encodeURIComponent(path + search)}`} />;
  if (who.person.must_change_password) return <NewPasswordScreen />;
  for (const r of ROUTES) {
    const match = r.path.exec(path);
    if (!match) continue;
    document.title = `${r.title} · Footfall`;
    return <Layout>{r.owner && !isOwner.value ? <NotFoundScreen /> : r.render([...match])}</Layout>;
  }
  return (
    <Layout>
      <NotFoundScreen />
    </Layout>
  );
}
