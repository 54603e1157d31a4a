import { describe, expect, it } from 'vitest';
import { primaryLanguage } from './language.ts';

describe('primaryLanguage', () => {
  it.each([
    ['en-US,en;q=0.9', 'en-US'],
    ['en-us,en;q=0.9,de;q=0.8', 'en-US'],
    ['de', 'de'],
    ['fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5', 'fr-CH'],
    ['pt-BR,pt;q=0.9,en-US;q=0.8,en;q=0.7', 'pt-BR'],
    ['zh-hant-tw,zh;q=0.9', 'zh-Hant-TW'],
    ['ZH-CN', 'zh-CN'],
    ['es-419,es;q=0.9', 'es-419'],
    // Weights are honoured, not just the order.
    ['de;q=0.5, en-GB;q=0.8', 'en-GB'],
    // The first of equal weights wins.
    ['nl, fr', 'nl'],
    // Invalid or wildcard entries are skipped, not fatal.
    ['*, ja;q=0.5', 'ja'],
    ['12345, it;q=0.4', 'it'],
    ['en;q=abc, sv;q=0.3', 'sv'],
    // Extensions and variants are dropped.
    ['de-DE-u-co-phonebk', 'de-DE'],
    ['en-US-x-twain', 'en-US'],
  ])('reads %j as %j', (header, expected) => {
    expect(primaryLanguage(header)).toBe(expected);
  });

  it.each([undefined, null, '', '*', '   ', ';q=1', 'en;q=0', '!!!', 'x'.repeat(600)])(
    'gives null for %j',
    (header) => {
      expect(primaryLanguage(header)).toBeNull();
    },
  );
});
