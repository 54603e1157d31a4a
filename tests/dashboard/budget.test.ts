import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIRST_VIEW_JS_BUDGET, firstViewSizes } from '../../apps/dashboard/scripts/sizes.ts';
import { RELEASES_ORIGIN } from '../../apps/query/src/dashboard.ts';

const BUILT = new URL('../../packages/cli/dist/dashboard', import.meta.url).pathname;

describe('the dashboard as built', () => {
  it(`ships at most ${FIRST_VIEW_JS_BUDGET / 1024} KB of JavaScript, gzipped, for the first view`, () => {
    const sizes = firstViewSizes(BUILT);
    expect(sizes.js.length).toBeGreaterThan(0);
    expect(sizes.jsTotal.gzip).toBeLessThanOrEqual(FIRST_VIEW_JS_BUDGET);
    // the screens away from the first view are split off, not bundled in
    expect(sizes.allJsTotal.raw).toBeGreaterThan(sizes.jsTotal.raw);
  });

  it('loads its update check only from the origin the page policy allows', () => {
    const source = readFileSync(new URL('../../apps/dashboard/src/update-check.ts', import.meta.url), 'utf8');
    expect(source).toContain(`export const RELEASES_ORIGIN = '${RELEASES_ORIGIN}';`);
  });
});
