import { describe, expect, it } from 'vitest';
import { safeNext } from './sso.ts';

describe('where a single sign-on returns to', () => {
  it('keeps a path of this site', () => {
    expect(safeNext('/sites/k3vq8m2xpa?period=7d')).toBe('/sites/k3vq8m2xpa?period=7d');
    expect(safeNext('/%2F%2Fevil.example')).toBe('/%2F%2Fevil.example');
  });

  it('never leaves the site', () => {
    for (const next of [
      undefined,
      '',
      'https://evil.example/',
      '//evil.example',
      '/\\evil.example',
      '/\t/evil.example',
      '/\n/evil.example',
      'sites',
      `/${'a'.repeat(2001)}`,
    ])
      expect(safeNext(next), JSON.stringify(next)).toBe('/');
  });
});
