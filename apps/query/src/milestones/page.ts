import { escapeHtml } from '../alerts/message.ts';
import type { MilestoneWords } from './words.ts';

const STYLE = `
  :root { color-scheme: light dark; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
  body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: #f4f4f7; color: #1d1d1f; }
  main { max-width: 720px; width: calc(100% - 32px); padding: 32px 0; text-align: center; }
  img { width: 100%; height: auto; border-radius: 12px; box-shadow: 0 8px 30px rgb(0 0 0 / 0.12); }
  h1 { font-size: 1.5rem; margin: 24px 0 8px; }
  p { margin: 0; color: #55555c; }
  footer { margin-top: 32px; font-size: 0.85rem; color: #6e6e73; }
  @media (prefers-color-scheme: dark) {
    body { background: #0b1020; color: #e5e7eb; }
    p, footer { color: #9ca3af; }
  }`;

/**
 * The public page of a shared milestone (`/m/{token}`): its card, and the Open Graph and Twitter
 * tags that make the card the link's preview wherever it is posted. Plain HTML, no script.
 */
export function milestonePage(o: {
  words: MilestoneWords;
  domain: string;
  url: string;
  image: string;
}): string {
  const title = escapeHtml(o.words.title);
  const description = escapeHtml(`${o.words.detail}. ${o.domain}, counted by Footfall.`);
  const image = escapeHtml(o.image);
  const alt = escapeHtml(`${o.words.value} ${o.words.label}: ${o.words.detail}`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<meta name="description" content="${description}">
<meta name="robots" content="noindex">
<meta property="og:type" content="website">
<meta property="og:site_name" content="Footfall">
<meta property="og:title" content="${title}">
<meta property="og:description" content="${description}">
<meta property="og:url" content="${escapeHtml(o.url)}">
<meta property="og:image" content="${image}">
<meta property="og:image:type" content="image/png">
<meta property="og:image:width" content="1200">
<meta property="og:image:height" content="630">
<meta property="og:image:alt" content="${alt}">
<meta name="twitter:card" content="summary_large_image">
<meta name="twitter:title" content="${title}">
<meta name="twitter:description" content="${description}">
<meta name="twitter:image" content="${image}">
<meta name="twitter:image:alt" content="${alt}">
<style>${STYLE}</style>
</head>
<body>
<main>
<img src="${image}" width="1200" height="630" alt="${alt}">
<h1>${title}</h1>
<p>${escapeHtml(o.words.detail)}</p>
<footer>Counted by Footfall for ${escapeHtml(o.domain)}</footer>
</main>
</body>
</html>`;
}

/** What `/m/{token}` shows once the link is revoked (or never was): 404, in words. */
export function notSharedPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Not shared</title>
<meta name="robots" content="noindex">
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>This milestone is not shared</h1>
<p>The link was revoked, or it was never a link to a milestone.</p>
</main>
</body>
</html>`;
}
