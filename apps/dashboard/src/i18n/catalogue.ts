/// <reference types="vite/client" />
import type { ComponentChild } from 'preact';
import { type Language, language, locale } from './language.ts';

/**
 * The dashboard's text: one catalogue per language, `i18n/<language>/`, split by area (`report`,
 * `settings`, …) so a screen loads only its own part. English is the source: each area's English
 * messages are imported by the area's module, other languages are loaded beside it, and a message
 * a translation lacks falls back to English (a test fails CI when one is missing).
 *
 * A message is text with `{name}` placeholders, or plural forms chosen by `Intl.PluralRules` on
 * the `count` parameter: `{ one: '{count} visitor', other: '{count} visitors' }`. Numbers passed
 * as parameters are written in the page's locale.
 */
export type Plural = { other: string } & Partial<Record<'zero' | 'one' | 'two' | 'few' | 'many', string>>;
export type Message = string | Plural;
export type Messages = Record<string, Message>;

/** A translation of an area: the same keys as English, a string where English has one, plural forms where English has them. */
export type Translation<M extends Messages> = { [K in keyof M]: M[K] extends string ? string : Plural };

export type Params = Record<string, string | number>;

export interface Translate<M extends Messages> {
  /** The message in the page's language, its placeholders filled. */
  (key: keyof M & string, params?: Params): string;
  /** The message with elements in its placeholders (a link inside a sentence). */
  rich(key: keyof M & string, parts: Record<string, ComponentChild>): ComponentChild[];
}

const loaders = import.meta.glob<{ default: Messages }>(['./*/*.ts', '!./en/*.ts']);

const plurals = new Intl.PluralRules(locale);
const numbers = new Intl.NumberFormat(locale);

function fill(text: string, params: Params | undefined): string {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = params[name];
    if (value === undefined) return whole;
    return typeof value === 'number' ? numbers.format(value) : value;
  });
}

function pick(message: Message | undefined, key: string, params: Params | undefined): string {
  if (message === undefined) return key; // only reachable through a cast: keys are typed
  if (typeof message === 'string') return message;
  const count = Number(params?.count ?? 0);
  return message[plurals.select(count)] ?? message.other;
}

/** Makes the translate function of one area from its messages. */
export function translator<M extends Messages>(messages: Messages): Translate<M> {
  const t = ((key: string, params?: Params) =>
    fill(pick(messages[key], key, params), params)) as Translate<M>;
  t.rich = (key, parts) => {
    const text = pick(messages[key], key, undefined);
    const out: ComponentChild[] = [];
    let last = 0;
    for (const match of text.matchAll(/\{(\w+)\}/g)) {
      const at = match.index ?? 0;
      if (at > last) out.push(text.slice(last, at));
      const name = match[1] as string;
      out.push(name in parts ? parts[name] : match[0]);
      last = at + match[0].length;
    }
    if (last < text.length) out.push(text.slice(last));
    return out;
  };
  return t;
}

/**
 * The translate function of one area in the page's language. Awaited at the top of the area's
 * module, so every module that shows the area's text runs only once its messages are here.
 */
export async function catalogue<M extends Messages>(
  area: string,
  en: M,
  lang: Language = language,
): Promise<Translate<M>> {
  if (lang === 'en') return translator<M>(en);
  const load = loaders[`./${lang}/${area}.ts`];
  if (!load) return translator<M>(en);
  try {
    const translated = (await load()).default;
    return translator<M>({ ...en, ...translated });
  } catch {
    return translator<M>(en); // the file could not be fetched (offline after a deploy): English beats a blank page
  }
}
