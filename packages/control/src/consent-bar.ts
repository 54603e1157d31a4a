import { AppError } from '@footfall/http';
import type { SitesTable } from './schema.ts';

/**
 * The settings of a site's own consent bar (shown by its tracker, see packages/tracker/README.md)
 * and what their nulls mean. Stored values are already checked: the gateway renders them into a
 * script served to every visitor, so a bad value must never get into the database.
 */

/** Longest consent text, in characters as JavaScript counts them (UTF-16 code units). */
export const CONSENT_TEXT_MAX = 300;

/** What a null text or colour stands for (colours: see consentColours). White on slate-800: 14.7:1. */
export const CONSENT_DEFAULTS = {
  text: 'May we count your visit? Our analytics are privacy-friendly: no ads, no tracking across sites.',
  background: '#1f2937',
  foreground: '#ffffff',
} as const;

/** Least contrast between the bar's text and background: WCAG 2 level AA for normal text. */
export const CONSENT_MIN_CONTRAST = 4.5;

/** The bar as the tracker draws it: every value filled in. */
export interface ConsentBar {
  text: string;
  background: string;
  foreground: string;
}

// Field names as the API spells them: these errors reach the client as they are.
const bad = (field: string, problem: string) =>
  new AppError('invalid_body', `${field}: ${problem}`, { field });

/**
 * The text as shown: runs of white space (line breaks included) become one space, since the bar is
 * one paragraph; a blank text is null, the default. Other control characters are a 400.
 */
export function normalizeConsentText(input: string | null): string | null {
  if (input === null) return null;
  const text = input.replace(/\s+/g, ' ').trim();
  if (/\p{Cc}/u.test(text)) throw bad('consent_text', 'must not contain control characters');
  if (text.length > CONSENT_TEXT_MAX) throw bad('consent_text', `at most ${CONSENT_TEXT_MAX} characters`);
  return text || null;
}

/** A `#rrggbb` colour in lower case, null (the default), or a 400 naming `field`. */
export function normalizeConsentColour(field: string, input: string | null): string | null {
  if (input === null) return null;
  if (!/^#[0-9a-f]{6}$/i.test(input)) throw bad(field, 'must be a colour such as #1f2937');
  return input.toLowerCase();
}

// WCAG 2 relative luminance of a `#rrggbb` colour.
const luminance = (hex: string): number => {
  const [r, g, b] = [1, 3, 5].map((at) => {
    const c = Number.parseInt(hex.slice(at, at + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
};

/** The WCAG 2 contrast ratio of two `#rrggbb` colours, from 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light! + 0.05) / (dark! + 0.05);
}

/** Black or white, whichever reads better on `colour` (never below 4.58:1, whatever the colour). */
const counterpart = (colour: string): string =>
  contrastRatio(colour, '#ffffff') >= contrastRatio(colour, '#000000') ? '#ffffff' : '#000000';

/**
 * The colours the bar shows for the stored ones. A null colour is its default, unless that would be
 * hard to read on the other colour: then it is black or white, whichever reads better. So only a
 * pair the owner chose both halves of can be unreadable, and that pair is refused when stored.
 */
export function consentColours(
  background: string | null,
  foreground: string | null,
): { background: string; foreground: string } {
  const readable = (a: string, b: string) => contrastRatio(a, b) >= CONSENT_MIN_CONTRAST;
  const bg =
    background ??
    (foreground === null || readable(CONSENT_DEFAULTS.background, foreground)
      ? CONSENT_DEFAULTS.background
      : counterpart(foreground));
  const fg =
    foreground ?? (readable(bg, CONSENT_DEFAULTS.foreground) ? CONSENT_DEFAULTS.foreground : counterpart(bg));
  return { background: bg, foreground: fg };
}

type ConsentColumns = Pick<Partial<SitesTable>, 'consent_text' | 'consent_background' | 'consent_foreground'>;

/**
 * The consent text and colours among `fields`, checked and normalised into their columns. When a
 * colour is among them, the pair the bar would show (`stored` for the colour not given) must reach
 * CONSENT_MIN_CONTRAST; the 400 names the colour given (the foreground when both are).
 */
export function consentColumns(
  fields: {
    consentText?: string | null;
    consentBackground?: string | null;
    consentForeground?: string | null;
  },
  stored: { background: string | null; foreground: string | null },
): ConsentColumns {
  const out: ConsentColumns = {};
  if (fields.consentText !== undefined) out.consent_text = normalizeConsentText(fields.consentText);
  if (fields.consentBackground !== undefined) {
    out.consent_background = normalizeConsentColour('consent_background', fields.consentBackground);
  }
  if (fields.consentForeground !== undefined) {
    out.consent_foreground = normalizeConsentColour('consent_foreground', fields.consentForeground);
  }
  const { consent_background: background, consent_foreground: foreground } = out;
  if (background !== undefined || foreground !== undefined) {
    const shown = consentColours(
      background === undefined ? stored.background : background,
      foreground === undefined ? stored.foreground : foreground,
    );
    const ratio = contrastRatio(shown.background, shown.foreground);
    if (ratio < CONSENT_MIN_CONTRAST) {
      throw bad(
        foreground === undefined ? 'consent_background' : 'consent_foreground',
        `the text would have a contrast of ${ratio.toFixed(2)}:1 on the background, below ${CONSENT_MIN_CONTRAST}:1`,
      );
    }
  }
  return out;
}

/** The bar a site's tracker shows, defaults filled in; undefined when the site has it off. */
export function consentBarOf(site: {
  consentBar: boolean;
  consentText: string | null;
  consentBackground: string | null;
  consentForeground: string | null;
}): ConsentBar | undefined {
  if (!site.consentBar) return undefined;
  return {
    text: site.consentText ?? CONSENT_DEFAULTS.text,
    ...consentColours(site.consentBackground, site.consentForeground),
  };
}
