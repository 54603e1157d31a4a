import { CHANNELS, type Channel } from '@footfall/schema';
import { describe, expect, it } from 'vitest';
import { type ChannelInput, classifyChannel, lookupHost, lookupSource } from './channels.ts';
import { CLICK_IDS, KNOWN_SOURCES } from './channels-data.ts';
import { referrerOf } from './referrer.ts';
import { campaignOf } from './utm.ts';

/** Runs the whole path the gateway will: page URL + referrer -> channel. */
function visit(u: string, r = ''): { channel: Channel; assistant: string | null } {
  const url = new URL(u);
  const ref = referrerOf(r, url.hostname.replace(/^www\./, ''), 'example.com');
  return classifyChannel({ ...ref, ...campaignOf(url) });
}

const none: ChannelInput = { referrerHost: null, utmSource: null, utmMedium: null, clickId: null };

describe('classifyChannel on real referrers', () => {
  it.each<[string, Channel, string | null]>([
    ['https://www.google.com/', 'Organic Search', null],
    ['https://www.google.co.uk/', 'Organic Search', null],
    ['https://www.google.com.br/', 'Organic Search', null],
    ['https://www.bing.com/search?q=x', 'Organic Search', null],
    ['https://cn.bing.com/', 'Organic Search', null],
    ['https://duckduckgo.com/', 'Organic Search', null],
    ['https://search.yahoo.com/', 'Organic Search', null],
    ['https://yandex.ru/', 'Organic Search', null],
    ['https://www.baidu.com/link?url=x', 'Organic Search', null],
    ['https://www.ecosia.org/', 'Organic Search', null],
    ['https://search.brave.com/', 'Organic Search', null],
    ['https://kagi.com/', 'Organic Search', null],
    ['android-app://com.google.android.googlequicksearchbox/', 'Organic Search', null],
    ['https://l.facebook.com/', 'Organic Social', null],
    ['https://m.facebook.com/', 'Organic Social', null],
    ['https://l.instagram.com/', 'Organic Social', null],
    ['https://t.co/xyz', 'Organic Social', null],
    ['https://x.com/', 'Organic Social', null],
    ['https://www.linkedin.com/', 'Organic Social', null],
    ['https://lnkd.in/abc', 'Organic Social', null],
    ['https://old.reddit.com/r/node', 'Organic Social', null],
    ['https://news.ycombinator.com/item?id=1', 'Organic Social', null],
    ['https://www.youtube.com/', 'Organic Social', null],
    ['https://www.pinterest.co.uk/', 'Organic Social', null],
    ['https://bsky.app/profile/x', 'Organic Social', null],
    ['https://mastodon.social/@x', 'Organic Social', null],
    ['https://mail.google.com/', 'Email', null],
    ['android-app://com.google.android.gm/', 'Email', null],
    ['https://outlook.live.com/', 'Email', null],
    ['https://us-mg5.mail.yahoo.com/', 'Email', null],
    ['https://chatgpt.com/', 'AI Assistant', 'ChatGPT'],
    ['https://chat.openai.com/', 'AI Assistant', 'ChatGPT'],
    ['https://www.perplexity.ai/', 'AI Assistant', 'Perplexity'],
    ['https://claude.ai/', 'AI Assistant', 'Claude'],
    ['https://gemini.google.com/', 'AI Assistant', 'Gemini'],
    ['https://bard.google.com/', 'AI Assistant', 'Gemini'],
    ['https://copilot.microsoft.com/', 'AI Assistant', 'Copilot'],
    ['https://edgeservices.bing.com/', 'AI Assistant', 'Copilot'],
    ['https://chat.deepseek.com/', 'AI Assistant', 'DeepSeek'],
    ['https://grok.com/', 'AI Assistant', 'Grok'],
    ['https://chat.mistral.ai/', 'AI Assistant', 'Mistral'],
    ['https://www.meta.ai/', 'AI Assistant', 'Meta AI'],
    ['https://you.com/', 'AI Assistant', 'You.com'],
    ['https://www.phind.com/', 'AI Assistant', 'Phind'],
    ['https://kagi.com/assistant', 'AI Assistant', 'Kagi Assistant'],
    ['https://poe.com/', 'AI Assistant', 'Poe'],
    ['https://huggingface.co/chat/conversation/1', 'AI Assistant', 'HuggingChat'],
    ['https://duck.ai/', 'AI Assistant', 'Duck.ai'],
    ['https://github.com/owner/repo', 'Referral', null],
    ['https://docs.google.com/document/d/1', 'Referral', null],
    ['https://huggingface.co/models', 'Referral', null],
    ['https://stackoverflow.com/questions/1', 'Referral', null],
    ['https://googleblog.com/', 'Referral', null],
    ['https://example.com/other', 'Direct', null],
    ['', 'Direct', null],
  ])('referrer %j -> %s (%s)', (r, channel, assistant) => {
    expect(visit('https://example.com/', r)).toEqual({ channel, assistant });
  });
});

describe('classifyChannel on campaign tags', () => {
  it.each<[string, string, Channel, string | null]>([
    ['?utm_source=google&utm_medium=cpc', '', 'Paid Search', null],
    ['?utm_source=bing&utm_medium=ppc', '', 'Paid Search', null],
    ['?utm_source=newsletter-sponsor&utm_medium=paid', '', 'Paid Search', null],
    ['?utm_source=facebook&utm_medium=cpc', '', 'Paid Social', null],
    ['?utm_source=linkedin&utm_medium=paid_social', '', 'Paid Social', null],
    ['?utm_medium=cpm', 'https://l.facebook.com/', 'Paid Social', null],
    ['?gclid=abc', '', 'Paid Search', null],
    ['?gbraid=abc', 'https://www.google.com/', 'Paid Search', null],
    ['?msclkid=abc', 'https://www.bing.com/', 'Paid Search', null],
    ['?ttclid=abc', '', 'Paid Social', null],
    ['?li_fat_id=abc', '', 'Paid Social', null],
    ['?twclid=abc', 'https://t.co/', 'Paid Social', null],
    // fbclid is on every Facebook outbound link, so alone it is not paid.
    ['?fbclid=abc', '', 'Organic Social', null],
    ['?fbclid=abc', 'https://l.facebook.com/', 'Organic Social', null],
    ['?fbclid=abc&utm_medium=paid_social&utm_source=facebook', '', 'Paid Social', null],
    ['?utm_source=chatgpt.com', '', 'AI Assistant', 'ChatGPT'],
    ['?utm_source=perplexity', '', 'AI Assistant', 'Perplexity'],
    ['?utm_source=chatgpt.com', 'https://www.google.com/', 'AI Assistant', 'ChatGPT'],
    ['?utm_medium=email&utm_source=spring', '', 'Email', null],
    ['?utm_medium=Newsletter', 'https://l.facebook.com/', 'Email', null],
    ['?utm_source=newsletter', '', 'Email', null],
    ['?utm_source=mailchimp&utm_campaign=x', '', 'Email', null],
    ['?utm_medium=organic&utm_source=somewhere', '', 'Organic Search', null],
    ['?utm_source=google&utm_medium=organic', '', 'Organic Search', null],
    ['?utm_medium=social&utm_source=whatever', '', 'Organic Social', null],
    ['?utm_source=twitter', '', 'Organic Social', null],
    ['?ref=producthunt', '', 'Organic Social', null],
    ['?utm_source=partner-site&utm_medium=referral', '', 'Referral', null],
    ['?utm_source=podcast', '', 'Referral', null],
    ['?utm_medium=affiliate', '', 'Referral', null],
    ['?utm_campaign=only-a-campaign', '', 'Direct', null],
  ])('%s with referrer %j -> %s', (query, r, channel, assistant) => {
    expect(visit(`https://example.com/${query}`, r)).toEqual({ channel, assistant });
  });

  it('gives Direct when nothing is known', () => {
    expect(classifyChannel(none)).toEqual({ channel: 'Direct', assistant: null });
  });
});

describe('the channel data', () => {
  it('only names channels that the WAL record accepts', () => {
    for (const click of CLICK_IDS) expect(CHANNELS).toContain(click.channel);
  });

  it('lists every host, brand and source once, in lowercase', () => {
    const seen = new Set<string>();
    for (const source of KNOWN_SOURCES) {
      for (const key of [
        ...(source.hosts ?? []).map((h) => `host:${h.replace(/^\*\./, '')}`),
        ...(source.brands ?? []).map((b) => `brand:${b}`),
        ...(source.sources ?? []).map((s) => `source:${s}`),
      ]) {
        expect(key, `${source.name} ${key}`).toBe(key.toLowerCase());
        expect(seen.has(key), `${key} is listed twice`).toBe(false);
        seen.add(key);
      }
      for (const host of source.hosts ?? []) expect(host.startsWith('www.'), host).toBe(false);
    }
  });

  it('resolves the most specific host first', () => {
    expect(lookupHost('mail.google.com')?.category).toBe('email');
    expect(lookupHost('gemini.google.com')?.category).toBe('ai');
    expect(lookupHost('google.com')?.category).toBe('search');
    expect(lookupHost('notebooklm.google.com')?.name).toBe('NotebookLM');
    expect(lookupHost('maps.google.com')).toBeNull();
  });

  it('matches a source that is written as a host', () => {
    expect(lookupSource('www.reddit.com')?.name).toBe('Reddit');
    expect(lookupSource(' ChatGPT.com ')?.name).toBe('ChatGPT');
    expect(lookupSource('unknown')).toBeNull();
  });
});
