// Footfall crawl reporting as a Cloudflare Worker in front of your site: the page is fetched from
// your origin and returned at once; for AI robots and search bots, one POST /api/crawl follows
// (ctx.waitUntil: after the response has gone). Set the secrets with wrangler:
//   wrangler secret put FOOTFALL_PROXY_KEY
// and the variables FOOTFALL_URL (your Footfall) and FOOTFALL_SITE (the site id) in wrangler.toml.
// See infra/crawl/README.md.

/** Every robot Footfall recognises matches this (checked by a test); browsers do not. */
const ROBOT_HINT =
  /bot|crawl|spider|fetch|agent|search|scrap|archive|-user|claude|perplexity|cohere|notebooklm|gemini|novaact|devin|amazonbuyforme|poggio|bigsur|anthropic|google-extended|googleother|omgili|webzio|img2dataset|cotoyogi|laion|meta-webindexer|yandex|autorag|anomura|inspectiontool|bingpreview|slurp|yeti|manus/i;

export default {
  async fetch(request, env, ctx) {
    const response = await fetch(request);
    const userAgent = request.headers.get('user-agent') ?? '';
    if (ROBOT_HINT.test(userAgent)) {
      ctx.waitUntil(
        fetch(`${env.FOOTFALL_URL.replace(/\/+$/, '')}/api/crawl`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-footfall-proxy-key': env.FOOTFALL_PROXY_KEY },
          body: JSON.stringify({
            s: env.FOOTFALL_SITE,
            u: request.url,
            ua: userAgent.slice(0, 1024),
            st: response.status,
          }),
        }).catch(() => undefined),
      );
    }
    return response;
  },
};
