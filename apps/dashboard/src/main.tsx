import { render } from 'preact';
import './styles/base.css';
import './styles/layout.css';
import './styles/report.css';
import './styles/screens.css';
import { App } from './App.tsx';
import { loadSession, maybeSignedIn } from './session.ts';
import { startSiteEarly } from './site/SiteScreen.tsx';
import { startTheme } from './theme.ts';

startTheme();
void loadSession();
// a site's page asks for the site beside the session, not after it
if (maybeSignedIn()) startSiteEarly(window.location.pathname);
render(<App />, document.getElementById('app')!);
