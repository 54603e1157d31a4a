import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CONSENT_DEFAULTS,
  CONSENT_MIN_CONTRAST,
  consentBarOf,
  consentColours,
  contrastRatio,
} from './consent-bar.ts';
import { createSite, getSite, updateSite } from './sites.ts';
import { tempControlDb } from './test-support.ts';

const CONSENT_DEFAULTS_COLOURS = {
  background: CONSENT_DEFAULTS.background,
  foreground: CONSENT_DEFAULTS.foreground,
};

let env: ReturnType<typeof tempControlDb>;
beforeEach(() => {
  env = tempControlDb();
});
afterEach(() => env.cleanup());

describe('consent bar settings', () => {
  it('are off with default text and colours for a new site', async () => {
    const site = await createSite(env.ctl, { domain: 'a.com' });
    expect(site).toMatchObject({
      consentBar: false,
      consentText: null,
      consentBackground: null,
      consentForeground: null,
    });
    expect(consentBarOf(site)).toBeUndefined();
  });

  it('store a tidied text and lower-case colours, and fill in the defaults for the tracker', async () => {
    const site = await createSite(env.ctl, {
      domain: 'a.com',
      consentBar: true,
      consentText: '  Count my visit?\n  Fine by us. ',
      consentBackground: '#FEF3C7',
    });
    const stored = getSite(env.ctl, site.id)!;
    expect(stored).toMatchObject({
      consentBar: true,
      consentText: 'Count my visit? Fine by us.',
      consentBackground: '#fef3c7',
      consentForeground: null,
    });
    expect(consentBarOf(stored)).toEqual({
      text: 'Count my visit? Fine by us.',
      background: '#fef3c7',
      foreground: '#000000', // the default white would not read on it
    });
    const plain = await updateSite(env.ctl, site.id, { consentText: null, consentBackground: null });
    expect(consentBarOf(plain)).toEqual(CONSENT_DEFAULTS);
  });

  it('refuse a text over 300 characters or with control characters, naming the field', async () => {
    await expect(
      createSite(env.ctl, { domain: 'a.com', consentText: 'x'.repeat(301) }),
    ).rejects.toMatchObject({
      code: 'invalid_body',
      field: 'consent_text',
    });
    await expect(createSite(env.ctl, { domain: 'a.com', consentText: 'bell\u0007' })).rejects.toMatchObject({
      field: 'consent_text',
    });
    expect((await createSite(env.ctl, { domain: 'b.com', consentText: '  ' })).consentText).toBeNull();
  });

  it('refuse a colour that is not #rrggbb, naming the field', async () => {
    for (const bad of ['red', '#fff', '#12345g', 'url(x)', '#1f2937;position:static']) {
      await expect(createSite(env.ctl, { domain: 'a.com', consentForeground: bad })).rejects.toMatchObject({
        field: 'consent_foreground',
      });
    }
  });

  it('refuse a pair of colours whose text would be hard to read, given together or one at a time', async () => {
    await expect(
      createSite(env.ctl, { domain: 'a.com', consentBackground: '#777777', consentForeground: '#888888' }),
    ).rejects.toMatchObject({ field: 'consent_foreground' });
    const site = await createSite(env.ctl, {
      domain: 'a.com',
      consentBackground: '#fafafa',
      consentForeground: '#111111',
    });
    await expect(updateSite(env.ctl, site.id, { consentForeground: '#eeeeee' })).rejects.toMatchObject({
      field: 'consent_foreground',
    });
    await expect(updateSite(env.ctl, site.id, { consentBackground: '#333333' })).rejects.toMatchObject({
      field: 'consent_background',
    });
    expect(getSite(env.ctl, site.id)).toEqual(site);
  });

  it('fill a colour left to its default so that the bar stays readable', () => {
    expect(consentColours(null, null)).toEqual(CONSENT_DEFAULTS_COLOURS);
    expect(consentColours('#fef3c7', null)).toEqual({ background: '#fef3c7', foreground: '#000000' });
    expect(consentColours('#0b3d91', null)).toEqual({ background: '#0b3d91', foreground: '#ffffff' });
    expect(consentColours(null, '#111111')).toEqual({ background: '#ffffff', foreground: '#111111' });
    expect(consentColours(null, '#fde68a')).toEqual({ background: '#1f2937', foreground: '#fde68a' });
    // every grey, the hardest case for a fixed counterpart, gets a readable one
    for (let v = 0; v < 256; v += 5) {
      const grey = `#${v.toString(16).padStart(2, '0').repeat(3)}`;
      const { background, foreground } = consentColours(grey, null);
      expect(contrastRatio(background, foreground)).toBeGreaterThanOrEqual(CONSENT_MIN_CONTRAST);
    }
  });

  it('change nothing when one field of a change is bad', async () => {
    const site = await createSite(env.ctl, { domain: 'a.com' });
    await expect(
      updateSite(env.ctl, site.id, { consentBar: true, cookieless: true, consentBackground: 'blue' }),
    ).rejects.toMatchObject({ field: 'consent_background' });
    expect(getSite(env.ctl, site.id)).toEqual(site);
  });
});

describe('contrastRatio', () => {
  it('follows WCAG 2, and the default colours pass with room to spare', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#ffffff', '#000000')).toBeCloseTo(21, 5);
    expect(contrastRatio('#777777', '#777777')).toBe(1);
    expect(contrastRatio('#767676', '#ffffff')).toBeCloseTo(4.54, 2); // the lightest AA grey on white
    expect(contrastRatio(CONSENT_DEFAULTS.background, CONSENT_DEFAULTS.foreground)).toBeGreaterThan(
      CONSENT_MIN_CONTRAST * 3,
    );
  });
});
