import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WalCrawl } from '@footfall/schema';
import { serve } from '@hono/node-server';
import express from 'express';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROBOTS } from '../../apps/ingest/src/enrich/robots-data.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

/**
 * The crawl recipes of infra/crawl against the real ingest gateway: the Node middleware under Hono
 * and Express, the Cloudflare Worker's fetch handler, the log forwarder as a process, and nginx's
 * mirror (Debian's nginx). Each reports a robot's request with its page (and status where it can
 * know it) and sends nothing for a person's.
 */
const CRAWL = fileURLToPath(new URL('../../infra/crawl/', import.meta.url));
const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';
const CLAUDE =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)';
const PERSON =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const BROWSERS = [
  PERSON,
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
];

let gw: TestGateway;
const servers: { close: () => unknown }[] = [];
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await gw.stop();
});

const crawls = async () => (await gw.records()).filter((r): r is WalCrawl => r.t === 'crawl');
/** Waits until the gateway has stored `n` more crawl hits than `before`, and answers the new ones. */
async function newCrawls(before: number, n: number): Promise<WalCrawl[]> {
  for (const started = Date.now(); Date.now() - started < 10_000; ) {
    const all = await crawls();
    if (all.length >= before + n) return all.slice(before);
    await new Promise((r) => setTimeout(r, 50));
  }
  return (await crawls()).slice(before);
}

const listen = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );

/** The robot hint regex of each recipe, read from the file itself. */
function hintOf(file: string): RegExp {
  const text = readFileSync(join(CRAWL, file), 'utf8');
  const m = /\/(bot\|crawl\|[^/]+)\/i/.exec(text) ?? /"~\*\((bot\|crawl\|[^)]+)\)"/.exec(text);
  if (!m) throw new Error(`no robot hint in ${file}`);
  return new RegExp(m[1]!, 'i');
}

describe('the crawl recipes', () => {
  it('match every robot Footfall recognises, and none of the common browsers, in every recipe', () => {
    for (const file of ['node.mjs', 'cloudflare-worker.js', 'forward-logs.mjs', 'nginx.conf']) {
      const hint = hintOf(file);
      const missed = ROBOTS.map((r) => r.token).filter(
        (t) => !hint.test(`Mozilla/5.0 (compatible; ${t}/1.0)`),
      );
      expect(missed, file).toEqual([]);
      expect(
        BROWSERS.filter((ua) => hint.test(ua)),
        file,
      ).toEqual([]);
    }
  });

  it('reports from Hono and Express after the response, with the status, and never for a person', async () => {
    const { footfallCrawl } = await import(join(CRAWL, 'node.mjs'));
    const crawl = footfallCrawl({
      url: gw.url,
      site: gw.site.id,
      key: gw.site.proxyKey,
      origin: 'https://example.com',
    });
    const hono = new Hono();
    hono.use(crawl.hono);
    hono.get('/docs', (c) => c.text('docs'));
    const honoServer = serve({ fetch: hono.fetch, port: 0, hostname: '127.0.0.1' });
    servers.push(honoServer);
    await new Promise((r) => honoServer.once('listening', r));
    const honoPort = (honoServer.address() as AddressInfo).port;
    const app = express();
    app.use(crawl.express);
    app.get('/pricing', (_req, res) => res.send('pricing'));
    const expressServer = createServer(app);
    servers.push(expressServer);
    const expressPort = await listen(expressServer);

    const before = (await crawls()).length;
    const get = (port: number, path: string, ua: string) =>
      fetch(`http://127.0.0.1:${port}${path}`, { headers: { 'user-agent': ua } });
    const page = await get(honoPort, '/docs', GPTBOT);
    expect(await page.text()).toBe('docs');
    expect(page.headers.get('x-footfall-proxy-key')).toBeNull();
    await get(honoPort, '/docs', PERSON);
    await get(expressPort, '/pricing', CLAUDE);
    await get(expressPort, '/missing', CLAUDE);
    await get(expressPort, '/pricing', PERSON);
    const got = await newCrawls(before, 3);
    expect(got.map((c) => [c.robot, c.path, c.status]).sort()).toEqual([
      ['ClaudeBot', '/missing', 404],
      ['ClaudeBot', '/pricing', 200],
      ['GPTBot', '/docs', 200],
    ]);
    await new Promise((r) => setTimeout(r, 300));
    expect((await crawls()).length).toBe(before + 3);
  });

  it('reports from the Cloudflare Worker once the response is returned', async () => {
    const origin = createServer((req, res) => res.writeHead(req.url === '/gone' ? 410 : 200).end('page'));
    servers.push(origin);
    const port = await listen(origin);
    const worker = (await import(join(CRAWL, 'cloudflare-worker.js'))).default;
    const env = { FOOTFALL_URL: gw.url, FOOTFALL_SITE: gw.site.id, FOOTFALL_PROXY_KEY: gw.site.proxyKey };
    const waiting: Promise<unknown>[] = [];
    const ctx = { waitUntil: (p: Promise<unknown>) => waiting.push(p) };
    // Cloudflare routes example.com to the worker, and the worker's fetch to the origin: here a
    // local server
    const realFetch = globalThis.fetch;
    globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
      const asked = new Request(input, init);
      const url = new URL(asked.url);
      if (url.hostname !== 'example.com') return realFetch(asked);
      return realFetch(`http://127.0.0.1:${port}${url.pathname}${url.search}`, { headers: asked.headers });
    }) as typeof fetch;
    const before = (await crawls()).length;
    try {
      const answer = await worker.fetch(
        new Request('https://example.com/gone', { headers: { 'user-agent': GPTBOT } }),
        env,
        ctx,
      );
      expect(answer.status).toBe(410);
      await worker.fetch(
        new Request('https://example.com/', { headers: { 'user-agent': PERSON } }),
        env,
        ctx,
      );
      await Promise.all(waiting);
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(waiting).toHaveLength(1);
    await Promise.all(waiting);
    const got = await newCrawls(before, 1);
    expect(got).toMatchObject([{ robot: 'GPTBot', path: '/gone', status: 410 }]);
  });

  it('forwards an access log: robots with their status, people and unreadable lines left out', async () => {
    const lines = [
      `66.249.66.1 - - [26/Nov/2026:10:00:00 +0000] "GET /blog/ai?ref=x HTTP/1.1" 200 5120 "-" "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"`,
      `20.171.207.2 - - [26/Nov/2026:10:00:01 +0000] "GET /old HTTP/1.1" 301 0 "-" "${GPTBOT}"`,
      `203.0.113.9 - - [26/Nov/2026:10:00:02 +0000] "GET / HTTP/2.0" 200 1000 "https://example.org/" "${PERSON}"`,
      'not a log line',
      `160.79.104.10 - - [26/Nov/2026:10:00:03 +0000] "GET /docs HTTP/1.1" 200 1000 "-" "Claude-User/1.0 (+Claude-User@anthropic.com)"`,
    ];
    const before = (await crawls()).length;
    const child = spawn(process.execPath, [join(CRAWL, 'forward-logs.mjs')], {
      env: {
        PATH: process.env.PATH ?? '',
        FOOTFALL_URL: gw.url,
        FOOTFALL_SITE: gw.site.id,
        FOOTFALL_PROXY_KEY: gw.site.proxyKey,
        FOOTFALL_SITE_ORIGIN: 'https://example.com',
      },
    });
    let stderr = '';
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.stdin.end(`${lines.join('\n')}\n`);
    const code = await new Promise((r) => child.on('exit', r));
    expect(code).toBe(0);
    expect(stderr).toContain('3 sent, 0 failed, 1 lines not read');
    const got = await newCrawls(before, 3);
    expect(got.map((c) => [c.robot, c.robotKind, c.path, c.status]).sort()).toEqual([
      ['Claude-User', 'ai_assistant', '/docs', 200],
      ['GPTBot', 'ai_training', '/old', 301],
      ['Googlebot', 'search', '/blog/ai', 200],
    ]);
  });

  it("reports through nginx's mirror, and the page is served as before", async () => {
    const origin = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/plain' }).end('the page'),
    );
    servers.push(origin);
    const originPort = await listen(origin);
    const dir = mkdtempSync(join(tmpdir(), 'ff-nginx-'));
    const probe = createServer();
    const port = await listen(probe);
    await new Promise((r) => probe.close(r));
    const recipe = readFileSync(join(CRAWL, 'nginx.conf'), 'utf8')
      .replaceAll('FOOTFALL_ADDRESS', gw.url)
      .replaceAll('SITE_ID', gw.site.id)
      .replaceAll('PROXY_KEY', gw.site.proxyKey);
    const map = recipe.slice(recipe.indexOf('map $http_user_agent'), recipe.indexOf('# server {'));
    const locations = recipe
      .slice(recipe.indexOf('# server {') + '# server { ...'.length, recipe.lastIndexOf('# }'))
      .replace(
        '# ... your site as before (root, proxy_pass, try_files)',
        `proxy_pass http://127.0.0.1:${originPort};`,
      );
    writeFileSync(
      join(dir, 'nginx.conf'),
      `daemon off;
       pid ${dir}/nginx.pid;
       error_log ${dir}/error.log;
       events { worker_connections 64; }
       http {
         access_log off;
         client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy;
         fastcgi_temp_path ${dir}/fastcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
         ${map}
         server {
           listen 127.0.0.1:${port};
           server_name example.com;
           ${locations}
         }
       }`,
    );
    const nginx = spawn('nginx', ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: 'pipe' });
    let nginxErr = '';
    nginx.stderr.on('data', (c) => {
      nginxErr += c;
    });
    servers.push({
      close: async () => {
        nginx.kill('SIGQUIT');
        await new Promise((r) => nginx.on('exit', r));
        rmSync(dir, { recursive: true, force: true });
      },
    });
    {
      // as a browser asks the server for https://example.com/docs/start
      const get = (ua: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = request(
            {
              host: '127.0.0.1',
              port,
              path: '/docs/start',
              headers: { host: 'example.com', 'user-agent': ua },
            },
            (res) => {
              let body = '';
              res.on('data', (c) => {
                body += c;
              });
              res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
            },
          );
          req.on('error', reject);
          req.end();
        });
      let page: { status: number; body: string } | undefined;
      for (let i = 0; i < 50 && !page; i++) {
        page = await get(PERSON).catch(() => undefined);
        if (!page) await new Promise((r) => setTimeout(r, 100));
      }
      expect(page, nginxErr).toEqual({ status: 200, body: 'the page' });
      const before = (await crawls()).length;
      expect(await get(GPTBOT)).toEqual({ status: 200, body: 'the page' });
      const got = await newCrawls(before, 1);
      expect(got).toMatchObject([{ robot: 'GPTBot', path: '/docs/start', status: null }]);
    }
  });
});
