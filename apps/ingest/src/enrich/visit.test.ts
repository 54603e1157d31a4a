import { WalEventSchema } from '@footfall/schema';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { visitSource } from './visit.ts';

describe('visitSource', () => {
  it('gives every traffic-source field of a WAL event at once', () => {
    expect(
      visitSource('https://www.example.com/pricing/?utm_source=chatgpt.com#plans', '', 'example.com'),
    ).toEqual({
      host: 'example.com',
      path: '/pricing',
      referrerHost: null,
      referrerPath: null,
      utmSource: 'chatgpt.com',
      utmMedium: null,
      utmCampaign: null,
      utmTerm: null,
      utmContent: null,
      clickId: null,
      channel: 'AI Assistant',
      assistant: 'ChatGPT',
    });
  });

  it('uses the referrer path for path-based sources', () => {
    expect(visitSource('https://example.com/', 'https://huggingface.co/chat/', 'example.com')).toMatchObject({
      referrerHost: 'huggingface.co',
      referrerPath: '/chat',
      channel: 'AI Assistant',
      assistant: 'HuggingChat',
    });
  });

  it('produces fields the WAL schema accepts', () => {
    const source = visitSource(
      `https://example.com/${'p'.repeat(2000)}?utm_campaign=${'c'.repeat(300)}&gclid=x`,
      `https://${'a'.repeat(60)}.referrer.example.org/${'q'.repeat(1900)}`,
      'example.com',
    );
    expect(source).not.toBeNull();
    const event = {
      t: 'event',
      id: 'abcdefgh',
      site: 'site',
      at: 0,
      kind: 'pv',
      visitor: 'abcdefgh',
      idMode: 'hash',
      device: 'desktop',
      ...source,
    };
    expect(v.safeParse(WalEventSchema, event).success).toBe(true);
  });

  it('gives null for a page URL that is not absolute', () => {
    expect(visitSource('/relative', '', 'example.com')).toBeNull();
  });
});
