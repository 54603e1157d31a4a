#!/usr/bin/env node
// Footfall crawl reporting from web server access logs (the combined format of nginx, Apache,
// Caddy's "common_log" with referer and agent): each line of an AI robot or search bot becomes one
// POST /api/crawl with the page, the user agent and the status the server answered. No
// dependencies. Reads standard input, so it follows a live log:
//
//   tail -F /var/log/nginx/access.log | \
//     FOOTFALL_URL=https://footfall.example.com FOOTFALL_SITE=<site id> \
//     FOOTFALL_PROXY_KEY=<proxy key> FOOTFALL_SITE_ORIGIN=https://example.com \
//     node forward-logs.mjs
//
// Lines it cannot read are skipped (and counted on standard error at the end). At most 8 posts
// run at once; at the end of the input it waits for the last ones. See infra/crawl/README.md.
import { createInterface } from 'node:readline';

/** Every robot Footfall recognises matches this (checked by a test); browsers do not. */
export const ROBOT_HINT =
  /bot|crawl|spider|fetch|agent|search|scrap|archive|-user|claude|perplexity|cohere|notebooklm|gemini|novaact|devin|amazonbuyforme|poggio|bigsur|anthropic|google-extended|googleother|omgili|webzio|img2dataset|cotoyogi|laion|meta-webindexer|yandex|autorag|anomura|inspectiontool|bingpreview|slurp|yeti|manus/i;

/** host ident user [time] "METHOD target PROTO" status size "referer" "agent" */
const COMBINED =
  /^\S+ \S+ \S+ \[[^\]]+\] "(?:[A-Z]+) (\S+)(?: [^"]*)?" (\d{3}) \S+ "(?:[^"\\]|\\.)*" "((?:[^"\\]|\\.)*)"/;

/** The page, status and user agent of one combined-format line; null when it is not one. */
export function parseLine(line) {
  const m = COMBINED.exec(line);
  if (!m) return null;
  return { target: m[1], status: Number(m[2]), userAgent: m[3].replace(/\\(.)/g, '$1') };
}

async function main() {
  const { FOOTFALL_URL, FOOTFALL_SITE, FOOTFALL_PROXY_KEY, FOOTFALL_SITE_ORIGIN } = process.env;
  if (!FOOTFALL_URL || !FOOTFALL_SITE || !FOOTFALL_PROXY_KEY || !FOOTFALL_SITE_ORIGIN) {
    console.error('set FOOTFALL_URL, FOOTFALL_SITE, FOOTFALL_PROXY_KEY and FOOTFALL_SITE_ORIGIN');
    process.exit(2);
  }
  const endpoint = `${FOOTFALL_URL.replace(/\/+$/, '')}/api/crawl`;
  const running = new Set();
  let sent = 0;
  let failed = 0;
  let unread = 0;
  const post = async (hit) => {
    try {
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-footfall-proxy-key': FOOTFALL_PROXY_KEY },
        body: JSON.stringify({
          s: FOOTFALL_SITE,
          u: new URL(hit.target, FOOTFALL_SITE_ORIGIN).href,
          ua: hit.userAgent.slice(0, 1024),
          st: hit.status,
        }),
        signal: AbortSignal.timeout(10_000),
      });
      await res.body?.cancel();
      if (res.status === 202) sent += 1;
      else failed += 1;
    } catch {
      failed += 1;
    }
  };
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY })) {
    const hit = parseLine(line);
    if (!hit) {
      if (line.trim()) unread += 1;
      continue;
    }
    if (!ROBOT_HINT.test(hit.userAgent)) continue;
    while (running.size >= 8) await Promise.race(running);
    const p = post(hit).finally(() => running.delete(p));
    running.add(p);
  }
  await Promise.all(running);
  console.error(`footfall crawl: ${sent} sent, ${failed} failed, ${unread} lines not read`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
