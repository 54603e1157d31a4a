import { describe, expect, it } from 'vitest';
import { campaignOf } from './utm.ts';

const at = (query: string) => campaignOf(new URL(`https://example.com/landing${query}`));

describe('campaignOf', () => {
  it('reads all five UTM tags, keeping their case and trimming space', () => {
    expect(
      at(
        '?utm_source=Newsletter&utm_medium=email&utm_campaign=Spring%20Sale&utm_term=+shoes+&utm_content=hero',
      ),
    ).toEqual({
      utmSource: 'Newsletter',
      utmMedium: 'email',
      utmCampaign: 'Spring Sale',
      utmTerm: 'shoes',
      utmContent: 'hero',
      clickId: null,
    });
  });

  it('gives all nulls for a URL without a query', () => {
    expect(at('')).toEqual({
      utmSource: null,
      utmMedium: null,
      utmCampaign: null,
      utmTerm: null,
      utmContent: null,
      clickId: null,
    });
  });

  it('matches parameter names in any case', () => {
    expect(at('?UTM_SOURCE=google&Utm_Medium=cpc').utmSource).toBe('google');
    expect(at('?UTM_SOURCE=google&Utm_Medium=cpc').utmMedium).toBe('cpc');
  });

  it('reads ref and source as the source only when utm_source is absent', () => {
    expect(at('?ref=producthunt').utmSource).toBe('producthunt');
    expect(at('?source=hn').utmSource).toBe('hn');
    expect(at('?ref=producthunt&utm_source=twitter').utmSource).toBe('twitter');
  });

  it('keeps the first value of a repeated tag and ignores empty ones', () => {
    expect(at('?utm_source=a&utm_source=b').utmSource).toBe('a');
    expect(at('?utm_source=&utm_medium=%20').utmSource).toBeNull();
    expect(at('?utm_source=&utm_medium=%20').utmMedium).toBeNull();
  });

  it('cuts values to 255 characters', () => {
    expect(at(`?utm_campaign=${'c'.repeat(400)}`).utmCampaign).toHaveLength(255);
  });

  it.each([
    'gclid',
    'gbraid',
    'wbraid',
    'msclkid',
    'fbclid',
    'ttclid',
    'li_fat_id',
    'twclid',
    'dclid',
    'yclid',
    'epik',
    'rdt_cid',
  ])('names the click id %s without keeping its value', (param) => {
    const campaign = at(`?${param}=Cj0KCQ-secret-value`);
    expect(campaign.clickId).toBe(param);
    expect(JSON.stringify(campaign)).not.toContain('secret');
  });

  it('names ScCid by its canonical spelling whatever its case', () => {
    expect(at('?sccid=1').clickId).toBe('ScCid');
  });

  it('prefers a paid search click id over fbclid when both are present', () => {
    expect(at('?fbclid=a&gclid=b').clickId).toBe('gclid');
  });

  it('ignores a click id parameter with no value', () => {
    expect(at('?gclid=').clickId).toBeNull();
  });
});
