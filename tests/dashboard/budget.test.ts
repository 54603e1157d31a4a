import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIRST_VIEW_JS_BUDGET, firstViewSizes } from '../../apps/dashboard/scripts/sizes.ts';

const BUILT = new URL('../../packages/cli/dist/dashboard', import.meta.url).pathname;

describe('the dashboard as built', () => {
  it(`ships at most ${FIRST_VIEW_JS_BUDGET / 1024} KB of JavaScript, gzipped, for the first view`, () => {
    const sizes = firstViewSizes(BUILT);
    expect(sizes.js.length).toBeGreaterThan(0);
    expect(sizes.jsTotal.gzip).toBeLessThanOrEqual(FIRST_VIEW_JS_BUDGET);
    // the screens away from the first view are split off, not bundled in
    expect(sizes.allJsTotal.raw).toBeGreaterThan(sizes.jsTotal.raw);
  });

  it('calls no host of its own: the update check reads only the list the operator names', () => {
    const source = readFileSync(new URL('../../apps/dashboard/src/update-check.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/https:\/\/[a-z]/);
    expect(source).toContain('await fetch(releasesUrl,');
  });
});
