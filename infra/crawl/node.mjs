// Footfall crawl reporting for Node servers (Hono and Express): after each response to an AI robot
// or search bot, one POST /api/crawl with the page, the robot's user agent and the status.
// No dependencies; copy this file into your server. The proxy key stays on the server: it is
// never sent to browsers. See infra/crawl/README.md.
//
//   import { footfallCrawl } from './footfall-crawl.mjs';
//   const crawl = footfallCrawl({
//     url: 'https://footfall.example.com',   // your Footfall
//     site: process.env.FOOTFALL_SITE,        // the site id
//     key: process.env.FOOTFALL_PROXY_KEY,    // the site's proxy key (Settings → Proxy key)
//   });
//   app.use(crawl.hono);      // Hono
//   app.use(crawl.express);   // Express

/**
 * User agents worth reporting: every robot Footfall recognises matches this (a test checks it
 * against Footfall's robot list); browsers do not. Footfall discards what it does not recognise,
 * so this only keeps people's requests from being sent at all.
 */
export const ROBOT_HINT =
  /bot|crawl|spider|fetch|agent|search|scrap|archive|-user|claude|perplexity|cohere|notebooklm|gemini|novaact|devin|amazonbuyforme|poggio|bigsur|anthropic|google-extended|googleother|omgili|webzio|img2dataset|cotoyogi|laion|meta-webindexer|yandex|autorag|anomura|inspectiontool|bingpreview|slurp|yeti|manus/i;

/**
 * @param {{ url: string, site: string, key: string, origin?: string, onError?: (error: unknown) => void }} options
 *   `origin`: the site's public origin (`https://example.com`), when the server sees another host
 *   (behind a proxy); by default the request's own.
 */
export function footfallCrawl(options) {
  const endpoint = `${options.url.replace(/\/+$/, '')}/api/crawl`;
  const onError = options.onError ?? (() => {});
  /** Sends one hit; never throws, never delays a response (the caller does not wait for it). */
  async function report({ url, userAgent, status }) {
    if (!userAgent || !ROBOT_HINT.test(userAgent)) return;
    const page = options.origin
      ? new URL(new URL(url).pathname + new URL(url).search, options.origin).href
      : url;
    try {
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-footfall-proxy-key': options.key },
        body: JSON.stringify({ s: options.site, u: page, ua: userAgent.slice(0, 1024), st: status }),
        signal: AbortSignal.timeout(5000),
      });
      if (res.status !== 202) onError(new Error(`Footfall answered ${res.status}`));
      await res.body?.cancel();
    } catch (error) {
      onError(error);
    }
  }
  return {
    report,
    /** Hono middleware: reports after the handler has answered. */
    async hono(c, next) {
      await next();
      void report({ url: c.req.url, userAgent: c.req.header('user-agent'), status: c.res.status });
    },
    /** Express middleware: reports once the response has been sent. */
    express(req, res, next) {
      res.on('finish', () => {
        const url = `${req.protocol}://${req.get('host')}${req.originalUrl}`;
        void report({ url, userAgent: req.get('user-agent'), status: res.statusCode });
      });
      next();
    },
  };
}
