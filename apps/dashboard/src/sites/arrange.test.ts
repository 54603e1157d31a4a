import { describe, expect, it } from 'vitest';
import { arrangeSites, moveItem } from './arrange.ts';

const site = (id: string, domain = `${id}.example`) => ({ id, domain });

describe('arrangeSites', () => {
  it('is one untitled section, by domain, without a layout', () => {
    const sections = arrangeSites([site('b'), site('a')], { order: [], pins: [], groups: [] });
    expect(sections).toEqual([{ title: null, sites: [site('a'), site('b')] }]);
  });

  it('puts pins first, then groups, then the rest, each in the saved order, each site once', () => {
    const sites = ['a', 'b', 'c', 'd', 'e'].map((id) => site(id));
    const sections = arrangeSites(sites, {
      order: ['e', 'd', 'c', 'b', 'a'],
      pins: ['c'],
      groups: [
        { name: 'Shops', sites: ['a', 'c', 'd'] },
        { name: 'Blogs', sites: ['d', 'b'] },
      ],
    });
    expect(sections.map((s) => [s.title, s.sites.map((x) => x.id)])).toEqual([
      ['Pinned', ['c']],
      ['Shops', ['d', 'a']],
      ['Blogs', ['b']],
      ['Other sites', ['e']],
    ]);
  });

  it('leaves out empty groups and unknown ids', () => {
    const sections = arrangeSites([site('a')], {
      order: ['zz'],
      pins: ['zz'],
      groups: [{ name: 'None', sites: ['zz'] }],
    });
    expect(sections).toEqual([{ title: null, sites: [site('a')] }]);
  });
});

describe('moveItem', () => {
  it('moves within the ends', () => {
    expect(moveItem(['a', 'b', 'c'], 0, 1)).toEqual(['b', 'a', 'c']);
    expect(moveItem(['a', 'b', 'c'], 2, 5)).toEqual(['a', 'b', 'c']);
    expect(moveItem(['a', 'b', 'c'], 1, -1)).toEqual(['b', 'a', 'c']);
  });
});
