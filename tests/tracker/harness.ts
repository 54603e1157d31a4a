/**
 * Shared setup of the tracker browser tests: a gateway (the recording stand-in by default), a page
 * server on another origin (so every event crosses origins and needs CORS, as on real sites), and
 * Debian's Chromium driven by playwright-core.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import {
  type GatewayUnderTest,
  type RecordingGatewayOptions,
  startRecordingGateway,
} from '../../packages/tracker/src/testing/recording-gateway.ts';

export const COOKIE_SITE = 'sitecookie1';
export const COOKIELESS_SITE = 'sitenocook1';

/**
 * The one place that decides which gateway the tests talk to. To run them against the real ingest
 * gateway, return an adapter implementing GatewayUnderTest around it here.
 */
export function startGateway(options: Partial<RecordingGatewayOptions> = {}): Promise<GatewayUnderTest> {
  return startRecordingGateway({
    sites: { [COOKIE_SITE]: { cookieless: false }, [COOKIELESS_SITE]: { cookieless: true } },
    retryAfterSeconds: 1,
    ...options,
  });
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}

export interface PageOptions {
  site?: string;
  /** Extra attributes on the script tag, e.g. `data-hash` or `data-require-consent`. */
  attrs?: string;
  /** Calls made through the stub before the script loads, as JS source, e.g. `footfall('consent', false)`. */
  early?: string;
  /** `?variant=` of the script. */
  variant?: string;
  body?: string;
}

/** A page with the install snippet (stub plus `<script defer src=".../js/<site>.js">`). */
export function pageHtml(gateway: GatewayUnderTest, options: PageOptions = {}): string {
  const site = options.site ?? COOKIE_SITE;
  const query = options.variant ? `?variant=${options.variant}` : '';
  return `<!doctype html><html><head><meta charset="utf-8"><title>t</title>
<script>window.footfall=window.footfall||function(){(footfall.q=footfall.q||[]).push(arguments)};${options.early ?? ''}</script>
<script defer src="${gateway.url}/js/${site}.js${query}" ${options.attrs ?? ''}></script>
</head><body style="margin:0">${options.body ?? '<p>hello</p>'}</body></html>`;
}

/** Serves HTML pages on 127.0.0.1 (port 0): a page answers its path and every path below it. */
export interface PageServer {
  readonly url: string;
  set(path: string, html: string): void;
  close(): Promise<void>;
}

export async function startPageServer(): Promise<PageServer> {
  const pages = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://pages').pathname;
    const key = [...pages.keys()].find((p) => path === p || path.startsWith(`${p}/`));
    if (!key) return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(pages.get(key));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    set: (path, html) => pages.set(path, html),
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** Polls `check` until it returns true, failing after `timeoutMs` with `what` in the message. */
export async function waitUntil(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
