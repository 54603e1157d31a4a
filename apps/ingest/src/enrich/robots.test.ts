import { ROBOT_KINDS, type RobotKind } from '@footfall/schema';
import { describe, expect, it } from 'vitest';
import { classifyRobot } from './robots.ts';
import { ROBOTS } from './robots-data.ts';

const real: [string, string, RobotKind][] = [
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
    'GPTBot',
    'ai_training',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
    'ChatGPT-User',
    'ai_assistant',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot',
    'OAI-SearchBot',
    'search',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
    'ClaudeBot',
    'ai_training',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)',
    'Claude-User',
    'ai_assistant',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-SearchBot/1.0; +Claude-SearchBot@anthropic.com)',
    'Claude-SearchBot',
    'search',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)',
    'PerplexityBot',
    'search',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)',
    'Perplexity-User',
    'ai_assistant',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; MistralAI-User/1.0; +https://docs.mistral.ai/robots)',
    'MistralAI-User',
    'ai_assistant',
  ],
  ['DuckAssistBot/1.2; (+http://duckduckgo.com/duckassistbot.html)', 'DuckAssistBot', 'ai_assistant'],
  [
    'meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)',
    'Meta-ExternalAgent',
    'ai_training',
  ],
  [
    'meta-externalfetcher/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)',
    'Meta-ExternalFetcher',
    'ai_assistant',
  ],
  ['CCBot/2.0 (https://commoncrawl.org/faq/)', 'CCBot', 'ai_training'],
  [
    'Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)',
    'Bytespider',
    'ai_training',
  ],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_10_1) AppleWebKit/600.2.5 (KHTML, like Gecko) Version/8.0.2 Safari/600.2.5 (Amazonbot/0.1; +https://developer.amazon.com/support/amazonbot)',
    'Amazonbot',
    'ai_training',
  ],
  [
    'Mozilla/5.0 (Windows NT 6.1; WOW64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/45.0.2454.85 Safari/537.36 (compatible; Diffbot/0.1; +http://www.diffbot.com)',
    'Diffbot',
    'ai_training',
  ],
  ['Mozilla/5.0 (compatible; YouBot/1.0; +https://about.you.com/youbot/)', 'YouBot', 'search'],
  ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'Googlebot', 'search'],
  [
    'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.126 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'Googlebot',
    'search',
  ],
  ['Googlebot-Image/1.0', 'Googlebot-Image', 'search'],
  ['Googlebot-News', 'Googlebot-News', 'search'],
  ['Mozilla/5.0 (compatible; Google-InspectionTool/1.0;)', 'Google-InspectionTool', 'search'],
  ['Mozilla/5.0 (compatible; GoogleOther)', 'GoogleOther', 'ai_training'],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36',
    'bingbot',
    'search',
  ],
  ['DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)', 'DuckDuckBot', 'search'],
  [
    'Mozilla/5.0 (compatible; DuckDuckBot-Https/1.1; https://duckduckgo.com/duckduckbot)',
    'DuckDuckBot-Https',
    'search',
  ],
  ['Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)', 'YandexBot', 'search'],
  [
    'Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)',
    'Baiduspider',
    'search',
  ],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)',
    'Applebot',
    'search',
  ],
  ['Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)', 'Slurp', 'search'],
  ['Sogou web spider/4.0(+http://www.sogou.com/docs/help/webmasters.htm#07)', 'Sogou web spider', 'search'],
  [
    'Mozilla/5.0 (Linux; Android 7.0;) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; PetalBot;+https://webmaster.petalsearch.com/site/petalbot)',
    'PetalBot',
    'search',
  ],
  [
    'Mozilla/5.0 (compatible; SeznamBot/4.0; +https://o-seznam.cz/napoveda/vyhledavani/en/seznambot-crawler/)',
    'SeznamBot',
    'search',
  ],
];

describe('classifyRobot', () => {
  it.each(real)('recognises %s', (ua, robot, kind) => {
    expect(classifyRobot(ua)).toEqual({ robot, kind });
  });

  it('matches tokens in any case and gives the canonical spelling', () => {
    expect(classifyRobot('gptbot/1.0')).toEqual({ robot: 'GPTBot', kind: 'ai_training' });
    expect(classifyRobot('CHATGPT-USER')).toEqual({ robot: 'ChatGPT-User', kind: 'ai_assistant' });
  });

  it('falls back from an unknown dashed variant to its base robot', () => {
    expect(classifyRobot('Googlebot-Mobile/2.1')?.robot).toBe('Googlebot');
  });

  it.each([
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Safari/537.36',
    'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
    'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)',
    'curl/8.5.0',
    'MyGPTBotClone/1.0',
    'NotGooglebot/1.0',
    'Mozilla/5.0 (compatible; SuperClaudeBotX)',
    '',
  ])('does not recognise %j', (ua) => {
    expect(classifyRobot(ua)).toBeNull();
  });

  it('returns the same answer from its cache', () => {
    const ua = real[0]![0];
    expect(classifyRobot(ua)).toEqual(classifyRobot(ua));
  });
});

describe('the robot list', () => {
  it('names each token once (case-insensitively) with a valid kind', () => {
    const seen = new Set<string>();
    for (const entry of ROBOTS) {
      expect(ROBOT_KINDS).toContain(entry.kind);
      expect(seen.has(entry.token.toLowerCase()), entry.token).toBe(false);
      seen.add(entry.token.toLowerCase());
      expect(entry.token.length).toBeLessThanOrEqual(64);
    }
  });
});
