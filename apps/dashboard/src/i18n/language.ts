/**
 * The dashboard's language: the person's choice (kept in this browser), else the first of the
 * browser's languages the dashboard speaks, else English. It holds for the page's life: choosing
 * another reloads the page, so every screen loads its text in the new language once.
 */
export const LANGUAGES = { en: 'English', de: 'Deutsch', fr: 'Français', es: 'Español' } as const;
export type Language = keyof typeof LANGUAGES;

const KEY = 'footfall.language';

const isLanguage = (value: unknown): value is Language =>
  typeof value === 'string' && Object.hasOwn(LANGUAGES, value);

/** What the person chose in Account, or null to follow the browser. */
export function chosenLanguage(): Language | null {
  try {
    const value = globalThis.localStorage?.getItem(KEY);
    return isLanguage(value) ? value : null;
  } catch {
    return null; // storage refused (a locked-down browser): follow the browser
  }
}

/** The first of the browser's preferred languages the dashboard speaks ("de-AT" is German). */
export function browserLanguage(
  preferred: readonly string[] = globalThis.navigator?.languages ?? [],
): Language {
  for (const tag of preferred) {
    const base = tag.toLowerCase().split('-')[0];
    if (isLanguage(base)) return base;
  }
  return 'en';
}

export const language: Language = chosenLanguage() ?? browserLanguage();
// said at once, before any text loads: screen readers and the browser's translate offer read it
if (typeof document !== 'undefined') document.documentElement.lang = language;

/**
 * The locale numbers and dates are written in: the browser's own tag when it is of this language
 * ("de-CH" keeps Swiss number grouping), else the language; English defaults to en-GB (day before
 * month, as the dashboard always wrote dates).
 */
export const locale: string = (() => {
  const own = (globalThis.navigator?.languages ?? []).find(
    (tag) => tag.toLowerCase().split('-')[0] === language && tag.includes('-'),
  );
  if (own && !(language === 'en' && own.toLowerCase() === 'en-us')) return own;
  return language === 'en' ? 'en-GB' : language;
})();

/** Keeps the choice in this browser and reloads the page in that language; `browser` follows the browser. */
export function chooseLanguage(choice: Language | 'browser'): void {
  try {
    if (choice === 'browser') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, choice);
  } catch {
    return;
  }
  window.location.reload();
}
