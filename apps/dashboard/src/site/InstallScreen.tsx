import { useState } from 'preact/hooks';
import type { Schema } from '../api/client.ts';
import { CopyButton, Link } from '../components/ui.tsx';
import { isOwner } from '../session.ts';
import { IgnoreMyVisits } from '../sites/IgnoreMyVisits.tsx';
import { ProxyKey } from '../sites/ProxyKey.tsx';
import { useLive } from './use-live.ts';

/** The tag for the `<head>` of every page of the site, from this Footfall's own address. */
export function scriptTag(site: string): string {
  return `<script defer src="${window.location.origin}/js/${site}.js"></script>`;
}

/**
 * A site waiting for its first visit: the tag to copy, the proxy key for server senders, and a
 * live "waiting" state that turns into the dashboard as soon as the first visit is stored.
 */
export function InstallScreen(props: { site: Schema<'Site'>; onArrived: () => void }) {
  const { site } = props;
  const [checks, setChecks] = useState(0);
  const mode = useLive(site.id, {
    onVisits: props.onArrived,
    onPoll: () => {
      setChecks((n) => n + 1);
      props.onArrived();
    },
  });
  const tag = scriptTag(site.id);
  return (
    <main class="page install" id="main" tabIndex={-1}>
      <div class="page-head">
        <h1>Add Footfall to {site.domain}</h1>
        {isOwner.value && (
          <div class="row">
            <Link class="button secondary" href={`/sites/${site.id}/settings`}>
              Site settings
            </Link>
            <Link class="button secondary" href="/sites/new">
              Add another site
            </Link>
          </div>
        )}
      </div>
      <section class="card stack" aria-labelledby="tag-title">
        <h2 id="tag-title">1. Put this tag in the &lt;head&gt; of every page</h2>
        <code class="code-box" id="script-tag">
          {tag}
        </code>
        <div class="row">
          <CopyButton text={tag} label="Copy the tag" />
          <span class="muted">
            It is about 2 KB gzipped, sets no cookie on cookieless sites, and follows page changes of
            single-page apps.
          </span>
        </div>
      </section>
      <section class="card waiting" aria-labelledby="wait-title">
        <h2 id="wait-title">2. Open a page of your site</h2>
        <p role="status" aria-live="polite" class="waiting-state">
          <span class="pulse" aria-hidden="true" />
          Waiting for the first visit…
          {mode === 'polling' && (
            <span class="muted"> (checking every 15 seconds{checks > 0 ? `, ${checks} so far` : ''})</span>
          )}
        </p>
        <p class="muted">
          This page turns into the dashboard by itself when the visit arrives. Visits from this browser count
          too, unless it sends Do Not Track or Global Privacy Control.
        </p>
      </section>
      <section class="card stack" aria-labelledby="ignore-title">
        <h2 id="ignore-title">3. Then leave your own visits out</h2>
        <p class="muted">Once your first visit has arrived, if you would rather not count your own.</p>
        <IgnoreMyVisits domain={site.domain} />
      </section>
      {isOwner.value && site.proxy_key && (
        <section class="card stack" aria-labelledby="server-title">
          <h2 id="server-title">Sending from a server instead</h2>
          <p>
            A server that sends events for its visitors adds the site's proxy key in{' '}
            <code>X-Footfall-Proxy-Key</code>. Keep it out of page code.
          </p>
          <ProxyKey site={site} />
        </section>
      )}
    </main>
  );
}
