/**
 * Prints the size of each tracker build as a markdown table (for BENCHMARKS.md).
 * Run: pnpm exec tsx packages/tracker/scripts/sizes.ts
 */
import { measuredOptions, renderTracker, sizeOf, TRACKER_BUDGETS, TRACKER_BUILDS } from '../src/index.ts';

const lines = [
  '| tracker build | raw bytes | gzip bytes | gzip budget |',
  '|---|--:|--:|--:|',
  ...TRACKER_BUILDS.map((build) => {
    // A 10-character site id, as the control plane makes them; the endpoint comes from the script URL.
    const options = { siteId: 'k3m9x2p7qa', cookieless: false, ...measuredOptions(build) };
    const { raw, gzip } = sizeOf(renderTracker(options).code);
    return `| ${build} | ${raw} | ${gzip} | ${TRACKER_BUDGETS[build]} |`;
  }),
];
console.log(lines.join('\n'));
