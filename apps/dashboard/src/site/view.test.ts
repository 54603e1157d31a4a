import { describe, expect, it } from 'vitest';
import { readView, viewHref, withFilter, withoutFilter } from './view.ts';

const read = (search: string) => readView(new URLSearchParams(search));

describe('the view in the URL', () => {
  it('reads defaults from an empty query', () => {
    expect(read('')).toMatchObject({ period: '30d', compare: 'off', filters: [], metric: 'visitors' });
    expect(viewHref('/sites/a', read(''))).toBe('/sites/a');
  });

  it('round-trips every part', () => {
    const url =
      '/sites/a?period=custom&from=2026-01-02&to=2026-01-09&compare=custom&cfrom=2025-01-02&cto=2025-01-09&f=country%3AFR&f=page%3A%2Fa%3Ab&metric=bounce_rate&bucket=hour&panel=referrer&search=news';
    const view = read(url.split('?')[1]!);
    expect(view.filters).toEqual(['country:FR', 'page:/a:b']);
    expect(viewHref('/sites/a', view)).toBe(url);
  });

  it('ignores what is wrong instead of failing', () => {
    expect(read('period=week&metric=money&compare=later&f=bad&from=2026-02-30&bucket=year')).toMatchObject({
      period: '30d',
      metric: 'visitors',
      compare: 'off',
      filters: [],
      from: undefined,
      bucket: undefined,
    });
  });

  it('replaces a filter of the same dimension, and keeps an empty value', () => {
    let view = withFilter(read('f=country:FR&f=device:mobile'), 'country', 'DE');
    expect(view.filters).toEqual(['device:mobile', 'country:DE']);
    view = withFilter(view, 'referrer', null);
    expect(viewHref('/s', view)).toBe('/s?f=device%3Amobile&f=country%3ADE&f=referrer%3A');
    expect(withoutFilter(view, 'country:DE').filters).toEqual(['device:mobile', 'referrer:']);
  });
});
