// The served tracker variants' sizes against their budgets. Writes bench/results/tracker.md.
// Run: pnpm bench:tracker
import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { renderTracker, TRACKER_BUDGETS, TRACKER_VARIANTS } from '@footfall/tracker';

const rows = TRACKER_VARIANTS.map((variant) => {
  // a typical 10-character site id, no endpoint: what `GET /js/<site>.js` serves
  const { code } = renderTracker({ siteId: 'a1b2c3d4e5', cookieless: false, variant });
  const gz = gzipSync(code, { level: 9 }).length;
  return `| ${variant} | ${Buffer.byteLength(code)} | ${gz} | ${TRACKER_BUDGETS[variant]} | ${gz <= TRACKER_BUDGETS[variant] ? 'within' : '**over**'} |`;
});
const md = [
  '## Tracker script size',
  '',
  'As served by `GET /js/<site>.js` for a 10-character site id, gzip level 9. The spec budget for the default script is 2,060 bytes gzipped; `packages/tracker/src/render.test.ts` fails CI when any variant is over its budget.',
  '',
  '| variant | raw bytes | gzip bytes | gzip budget | |',
  '|---|--:|--:|--:|---|',
  ...rows,
  '',
].join('\n');
writeFileSync(new URL('./results/tracker.md', import.meta.url), md);
console.log(md);
