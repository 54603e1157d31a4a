import { describe, expect, it } from 'vitest';
import { buildTracker } from './build.ts';
import { renderTracker } from './render.ts';
import { sizeOf, TRACKER_BUDGETS, TRACKER_VARIANTS } from './variants.ts';

// Site ids are 10 random characters (packages/control); the budget is checked at that length.
const TYPICAL_SITE = 'k3m9x2p7qa';

describe('renderTracker', () => {
  it('bakes in the site id and mode as literals, leaving no placeholder behind', () => {
    const { code } = renderTracker({ siteId: TYPICAL_SITE, cookieless: true });
    expect(code).toContain(`"${TYPICAL_SITE}"`);
    expect(code).not.toMatch(/__FF_/);
    expect(() => new Function(code)).not.toThrow(); // parses as a script (not run: it needs a DOM)
  });

  it('escapes a hostile site id so it cannot end the script or break out of its string', () => {
    const siteId = '"</script><script>alert(1)//\u2028';
    const { code } = renderTracker({ siteId, cookieless: false });
    expect(code).not.toContain('</script>');
    expect(code).toContain('"\\"\\u003c/script>\\u003cscript>alert(1)//\\u2028"');
    expect(() => new Function(code)).not.toThrow();
  });

  it('bakes in an endpoint when given one and refuses anything but an absolute http(s) URL', () => {
    expect(
      renderTracker({ siteId: 'a', cookieless: false, endpoint: 'https://x.example/api/e' }).code,
    ).toContain('"https://x.example/api/e"');
    expect(() => renderTracker({ siteId: 'a', cookieless: false, endpoint: 'javascript:alert(1)' })).toThrow(
      TypeError,
    );
    expect(() => renderTracker({ siteId: 'a', cookieless: false, endpoint: '/api/e' })).toThrow(TypeError);
  });

  it('refuses a site id outside 1 to 64 characters', () => {
    expect(() => renderTracker({ siteId: '', cookieless: false })).toThrow(TypeError);
    expect(() => renderTracker({ siteId: 'x'.repeat(65), cookieless: false })).toThrow(TypeError);
  });

  it('gives a stable strong ETag that changes with the site, the mode and the variant', () => {
    const etag = (siteId: string, cookieless: boolean, variant?: 'vitals') =>
      renderTracker({ siteId, cookieless, variant }).etag;
    expect(etag('a', false)).toBe(etag('a', false));
    expect(etag('a', false)).toMatch(/^"[\w-]+"$/);
    expect(
      new Set([etag('a', false), etag('b', false), etag('a', true), etag('a', false, 'vitals')]).size,
    ).toBe(4);
  });

  it('keeps Web Vitals code out of the default build', () => {
    expect(buildTracker('default')).not.toContain('PerformanceObserver');
    expect(buildTracker('vitals')).toContain('largest-contentful-paint');
  });
});

describe('size budget', () => {
  for (const variant of TRACKER_VARIANTS) {
    it(`keeps the ${variant} script within ${TRACKER_BUDGETS[variant]} bytes gzipped`, () => {
      const { code } = renderTracker({ siteId: TYPICAL_SITE, cookieless: false, variant });
      expect(sizeOf(code).gzip).toBeLessThanOrEqual(TRACKER_BUDGETS[variant]);
    });
  }
});
