/**
 * Prints the size of each served tracker variant as a markdown table (for BENCHMARKS.md).
 * Run: pnpm exec tsx packages/tracker/scripts/sizes.ts
 */
import { renderTracker, sizeOf, TRACKER_BUDGETS, TRACKER_VARIANTS } from '../src/index.ts';

const lines = [
  '| tracker variant | raw bytes | gzip bytes | gzip budget |',
  '|---|--:|--:|--:|',
  ...TRACKER_VARIANTS.map((variant) => {
    // A 10-character site id, as the control plane makes them; the endpoint comes from the script URL.
    const { raw, gzip } = sizeOf(renderTracker({ siteId: 'k3m9x2p7qa', cookieless: false, variant }).code);
    return `| ${variant} | ${raw} | ${gzip} | ${TRACKER_BUDGETS[variant]} |`;
  }),
];
console.log(lines.join('\n'));
