import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Message, type Messages, translator } from './catalogue.ts';
import { browserLanguage, LANGUAGES } from './language.ts';
import { findLiterals } from './literals.ts';

const here = import.meta.dirname;
const areas = readdirSync(join(here, 'en')).filter((f) => f.endsWith('.ts'));
const others = Object.keys(LANGUAGES).filter((l) => l !== 'en');

const load = async (lang: string, file: string): Promise<Messages> =>
  ((await import(join(here, lang, file))) as { default: Messages }).default;

const placeholders = (m: Message): string[] =>
  [
    ...new Set(
      (typeof m === 'string' ? [m] : Object.values(m)).flatMap((s) =>
        [...s.matchAll(/\{(\w+)\}/g)].map((x) => x[1]!),
      ),
    ),
  ].sort();

describe('the catalogues', () => {
  it('have an area or more', () => expect(areas.length).toBeGreaterThan(0));

  for (const lang of others) {
    describe(LANGUAGES[lang as keyof typeof LANGUAGES], () => {
      const categories = new Set(new Intl.PluralRules(lang).resolvedOptions().pluralCategories);
      for (const file of areas) {
        it(`translates every message of ${file}, with the same placeholders`, async () => {
          const en = await load('en', file);
          const translated = await load(lang, file);
          expect(Object.keys(translated).sort(), `${lang}/${file}: keys`).toEqual(Object.keys(en).sort());
          for (const [key, english] of Object.entries(en)) {
            const message = translated[key]!;
            expect(typeof message, `${lang}/${file}: ${key} is plural in English`).toBe(typeof english);
            expect(placeholders(message), `${lang}/${file}: ${key}'s placeholders`).toEqual(
              placeholders(english),
            );
            if (typeof message !== 'string') {
              expect(message.other, `${lang}/${file}: ${key} has "other"`).toBeTypeOf('string');
              for (const form of Object.keys(message))
                expect(
                  categories.has(form as Intl.LDMLPluralRule),
                  `${lang}/${file}: ${key} has "${form}", unknown in ${lang}`,
                ).toBe(true);
            }
          }
        });
      }
    });
  }

  it('hold all the text: no component writes its own', () => {
    const found = findLiterals(join(here, '..')).map((l) => `${l.file}:${l.line} ${l.text}`);
    expect(found).toEqual([]);
  });
});

describe('a message', () => {
  const t = translator<Messages>({
    visitors: { one: '{count} visitor', other: '{count} visitors' },
    hello: 'Hello {name}, see {link}.',
  });

  it('takes the plural form of its count, the count written as a number', () => {
    expect(t('visitors', { count: 1 })).toBe('1 visitor');
    expect(t('visitors', { count: 1234 })).toBe('1,234 visitors');
  });

  it('holds elements in its placeholders', () => {
    expect(t.rich('hello', { name: 'Ann', link: 42 })).toEqual(['Hello ', 'Ann', ', see ', 42, '.']);
  });
});

describe('the language', () => {
  it("follows the first of the browser's languages the dashboard speaks", () => {
    expect(browserLanguage(['nl-NL', 'de-AT', 'fr'])).toBe('de');
    expect(browserLanguage(['es-419'])).toBe('es');
    expect(browserLanguage(['ja', 'nl'])).toBe('en');
    expect(browserLanguage([])).toBe('en');
  });
});
