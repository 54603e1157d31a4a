import { describe, expect, it } from 'vitest';
import { buildAddon, buildTracker } from './build.ts';
import { renderTracker } from './render.ts';
import {
  ADDON_BUDGETS,
  MEASURED_CONSENT_BAR,
  measuredOptions,
  sizeOf,
  TRACKER_ADDONS,
  TRACKER_BUDGETS,
  TRACKER_BUILDS,
} from './variants.ts';

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

describe('the consent bar', () => {
  const bar = { text: 'Count me?', background: '#1F2937', foreground: '#ffffff' };

  it('is served, with its text and colours, only to a site that has it on, in either variant', () => {
    const plain = renderTracker({ siteId: 'a', cookieless: false }).code;
    const withBar = renderTracker({ siteId: 'a', cookieless: false, consentBar: bar }).code;
    const withBoth = renderTracker({
      siteId: 'a',
      cookieless: false,
      variant: 'vitals',
      consentBar: bar,
    }).code;
    expect(plain).not.toContain('footfall_consent');
    expect(withBar).toContain('"Count me?"');
    expect(withBar).toContain('"#1F2937"');
    expect(withBar).not.toContain('PerformanceObserver');
    expect(withBoth).toContain('footfall_consent');
    expect(withBoth).toContain('PerformanceObserver');
    expect(withBoth).not.toMatch(/__FF_/);
    expect(() => new Function(withBoth)).not.toThrow();
  });

  it('keeps every piece of the bar out of the builds without it', () => {
    for (const build of ['default', 'vitals'] as const) {
      const code = buildTracker(build);
      for (const piece of ['footfall_consent', 'attachShadow', 'Analytics consent', '__FF_CONSENT']) {
        expect(code).not.toContain(piece);
      }
    }
    expect(buildTracker('consent')).toContain('attachShadow');
  });

  it('escapes a hostile text so it cannot end the script or break out of its string', () => {
    const text = `"</script><script>alert(1)//' \u2028 \\`;
    const { code } = renderTracker({ siteId: 'a', cookieless: false, consentBar: { ...bar, text } });
    expect(code).not.toContain('</script>');
    expect(code).toContain(String.raw`"\"\u003c/script>\u003cscript>alert(1)//' \u2028 \\"`);
    expect(() => new Function(code)).not.toThrow();
  });

  it('refuses an empty text and a colour that is not #rrggbb (it is written into CSS)', () => {
    const render = (consentBar: typeof bar) => () =>
      renderTracker({ siteId: 'a', cookieless: false, consentBar });
    expect(render({ ...bar, text: '' })).toThrow(TypeError);
    for (const colour of ['red', '#fff', '#ffffff;}*{display:none', '"#ffffff"', 'url(x)']) {
      expect(render({ ...bar, background: colour })).toThrow(TypeError);
      expect(render({ ...bar, foreground: colour })).toThrow(TypeError);
    }
  });

  it('changes the ETag when the text or a colour changes', () => {
    const etag = (consentBar?: typeof bar) =>
      renderTracker({ siteId: 'a', cookieless: false, consentBar }).etag;
    const etags = [
      etag(),
      etag(bar),
      etag({ ...bar, text: 'Other' }),
      etag({ ...bar, foreground: '#fffffe' }),
    ];
    expect(new Set(etags).size).toBe(4);
  });
});

describe('size budget', () => {
  for (const build of TRACKER_BUILDS) {
    it(`keeps the ${build} script within ${TRACKER_BUDGETS[build]} bytes gzipped`, () => {
      const { code } = renderTracker({ siteId: TYPICAL_SITE, cookieless: false, ...measuredOptions(build) });
      expect(sizeOf(code).gzip).toBeLessThanOrEqual(TRACKER_BUDGETS[build]);
    });
  }

  for (const addon of TRACKER_ADDONS) {
    it(`adds at most ${ADDON_BUDGETS[addon]} bytes gzipped with the ${addon} add-on, and nothing without it`, () => {
      const options = { siteId: TYPICAL_SITE, cookieless: false };
      const without = renderTracker(options).code;
      const withAddon = renderTracker({ ...options, addons: [addon] }).code;
      expect(withAddon.startsWith(without)).toBe(true);
      expect(without).not.toContain(buildAddon(addon));
      expect(sizeOf(withAddon).gzip - sizeOf(without).gzip).toBeLessThanOrEqual(ADDON_BUDGETS[addon]);
      expect(renderTracker({ ...options, addons: [addon] }).etag).not.toBe(renderTracker(options).etag);
    });
  }

  it('measures the consent builds with the longest text the control plane allows', () => {
    expect(MEASURED_CONSENT_BAR.text).toHaveLength(300);
  });
});
