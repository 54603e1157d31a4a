import type { Channel } from '@footfall/schema';

/**
 * DATA, not code: the sources the channel rules recognise. CHANNELS.md beside this file says
 * how they are used. To add a site, add a host here; no rule changes.
 *
 * - `hosts`: host keys (lowercase, no `www.`). `*.example.com` matches example.com and every
 *   subdomain; a plain host matches itself only. Android app referrers
 *   (`android-app://<package>`) appear as their package name.
 * - `brands`: the first label of a host followed only by a country-code style ending
 *   (`google` matches google.com, google.de, google.co.uk, google.com.br).
 * - `paths`: a host whose referrer path decides (HuggingChat lives at huggingface.co/chat).
 * - `sources`: `utm_source` values (lowercase). A source that looks like a host (`chatgpt.com`)
 *   is also looked up among the hosts.
 *
 * Exact hosts and paths win over `*.` hosts, which win over brands, so mail.google.com is
 * email and gemini.google.com an AI assistant while google.com is search.
 */
export type SourceCategory = 'search' | 'social' | 'email' | 'ai';

export interface KnownSource {
  /** shown in reports; for AI assistants this is the `assistant` field */
  readonly name: string;
  readonly category: SourceCategory;
  readonly hosts?: readonly string[];
  readonly brands?: readonly string[];
  readonly paths?: readonly { readonly host: string; readonly prefix: string }[];
  readonly sources?: readonly string[];
}

export const AI_ASSISTANTS: readonly KnownSource[] = [
  {
    name: 'ChatGPT',
    category: 'ai',
    hosts: ['*.chatgpt.com', 'chat.openai.com', 'com.openai.chatgpt'],
    sources: ['chatgpt.com', 'chatgpt', 'chat.openai.com', 'openai'],
  },
  {
    name: 'Perplexity',
    category: 'ai',
    hosts: ['*.perplexity.ai'],
    sources: ['perplexity', 'perplexity.ai'],
  },
  { name: 'Claude', category: 'ai', hosts: ['claude.ai'], sources: ['claude', 'claude.ai', 'anthropic'] },
  {
    name: 'Gemini',
    category: 'ai',
    hosts: ['gemini.google.com', 'bard.google.com'],
    sources: ['gemini', 'gemini.google.com', 'bard'],
  },
  {
    name: 'Copilot',
    category: 'ai',
    hosts: ['copilot.microsoft.com', 'copilot.cloud.microsoft', 'edgeservices.bing.com'],
    sources: ['copilot', 'copilot.microsoft.com'],
  },
  { name: 'DeepSeek', category: 'ai', hosts: ['*.deepseek.com'], sources: ['deepseek', 'chat.deepseek.com'] },
  { name: 'Grok', category: 'ai', hosts: ['grok.com', '*.x.ai'], sources: ['grok', 'grok.com'] },
  {
    name: 'Mistral',
    category: 'ai',
    hosts: ['chat.mistral.ai'],
    sources: ['mistral', 'lechat', 'chat.mistral.ai'],
  },
  { name: 'Meta AI', category: 'ai', hosts: ['*.meta.ai'], sources: ['meta.ai', 'metaai'] },
  { name: 'You.com', category: 'ai', hosts: ['you.com'], sources: ['you.com', 'youchat'] },
  { name: 'Phind', category: 'ai', hosts: ['phind.com'], sources: ['phind'] },
  { name: 'Kagi Assistant', category: 'ai', paths: [{ host: 'kagi.com', prefix: '/assistant' }] },
  { name: 'Poe', category: 'ai', hosts: ['poe.com'], sources: ['poe'] },
  {
    name: 'HuggingChat',
    category: 'ai',
    paths: [
      { host: 'huggingface.co', prefix: '/chat' },
      { host: 'hf.co', prefix: '/chat' },
    ],
    sources: ['huggingchat'],
  },
  { name: 'Duck.ai', category: 'ai', hosts: ['duck.ai'], sources: ['duck.ai'] },
  { name: 'Qwen', category: 'ai', hosts: ['chat.qwen.ai'], sources: ['qwen'] },
  { name: 'Kimi', category: 'ai', hosts: ['kimi.com', 'kimi.moonshot.cn'], sources: ['kimi'] },
  { name: 'Doubao', category: 'ai', hosts: ['*.doubao.com'], sources: ['doubao'] },
  { name: 'NotebookLM', category: 'ai', hosts: ['notebooklm.google.com'], sources: ['notebooklm'] },
  { name: 'Google AI Studio', category: 'ai', hosts: ['aistudio.google.com'] },
  { name: 'Pi', category: 'ai', hosts: ['pi.ai'] },
  { name: 'Felo', category: 'ai', hosts: ['felo.ai'] },
  { name: 'Andi', category: 'ai', hosts: ['andisearch.com'] },
  { name: 'Manus', category: 'ai', hosts: ['manus.im'] },
];

export const SEARCH_ENGINES: readonly KnownSource[] = [
  {
    name: 'Google',
    category: 'search',
    brands: ['google'],
    hosts: ['com.google.android.googlequicksearchbox'],
    sources: ['google'],
  },
  { name: 'Bing', category: 'search', hosts: ['*.bing.com'], sources: ['bing'] },
  {
    name: 'Yahoo',
    category: 'search',
    brands: ['yahoo'],
    hosts: ['*.search.yahoo.com', 'search.yahoo.co.jp'],
    sources: ['yahoo'],
  },
  { name: 'DuckDuckGo', category: 'search', hosts: ['*.duckduckgo.com'], sources: ['duckduckgo', 'ddg'] },
  { name: 'Yandex', category: 'search', brands: ['yandex'], hosts: ['ya.ru'], sources: ['yandex'] },
  { name: 'Baidu', category: 'search', hosts: ['*.baidu.com'], sources: ['baidu'] },
  { name: 'Ecosia', category: 'search', hosts: ['ecosia.org'], sources: ['ecosia'] },
  { name: 'Brave Search', category: 'search', hosts: ['search.brave.com'], sources: ['brave'] },
  { name: 'Startpage', category: 'search', hosts: ['*.startpage.com'], sources: ['startpage'] },
  { name: 'Qwant', category: 'search', hosts: ['*.qwant.com'], sources: ['qwant'] },
  { name: 'Naver', category: 'search', hosts: ['*.naver.com'], sources: ['naver'] },
  { name: 'Seznam', category: 'search', hosts: ['*.seznam.cz'], sources: ['seznam'] },
  { name: 'Kagi', category: 'search', hosts: ['kagi.com'], sources: ['kagi'] },
  { name: 'Ask', category: 'search', hosts: ['*.ask.com'] },
  { name: 'AOL', category: 'search', hosts: ['search.aol.com'] },
  { name: 'Sogou', category: 'search', hosts: ['*.sogou.com'] },
  { name: '360 Search', category: 'search', hosts: ['*.so.com'] },
  { name: 'Daum', category: 'search', hosts: ['search.daum.net'] },
  { name: 'Mojeek', category: 'search', hosts: ['mojeek.com'] },
  { name: 'Petal Search', category: 'search', hosts: ['petalsearch.com'] },
  { name: 'Coc Coc', category: 'search', hosts: ['coccoc.com'] },
  { name: 'Swisscows', category: 'search', hosts: ['swisscows.com'] },
  { name: 'MetaGer', category: 'search', hosts: ['metager.org', 'metager.de'] },
];

export const SOCIAL_NETWORKS: readonly KnownSource[] = [
  {
    name: 'Facebook',
    category: 'social',
    hosts: ['*.facebook.com', 'fb.com', 'fb.me', 'com.facebook.katana'],
    sources: ['facebook', 'fb', 'facebook.com'],
  },
  {
    name: 'Instagram',
    category: 'social',
    hosts: ['*.instagram.com', 'com.instagram.android'],
    sources: ['instagram', 'ig'],
  },
  {
    name: 'X',
    category: 'social',
    hosts: ['*.x.com', '*.twitter.com', 't.co'],
    sources: ['twitter', 'x', 'x.com'],
  },
  {
    name: 'LinkedIn',
    category: 'social',
    hosts: ['*.linkedin.com', 'lnkd.in', 'com.linkedin.android'],
    sources: ['linkedin'],
  },
  { name: 'Reddit', category: 'social', hosts: ['*.reddit.com', 'redd.it'], sources: ['reddit'] },
  { name: 'YouTube', category: 'social', hosts: ['*.youtube.com', 'youtu.be'], sources: ['youtube'] },
  { name: 'Pinterest', category: 'social', brands: ['pinterest'], hosts: ['pin.it'], sources: ['pinterest'] },
  { name: 'TikTok', category: 'social', hosts: ['*.tiktok.com'], sources: ['tiktok'] },
  { name: 'Threads', category: 'social', hosts: ['threads.net', 'threads.com'], sources: ['threads'] },
  { name: 'Bluesky', category: 'social', hosts: ['bsky.app'], sources: ['bluesky', 'bsky'] },
  {
    name: 'Mastodon',
    category: 'social',
    hosts: [
      'mastodon.social',
      'mastodon.online',
      'mstdn.social',
      'mas.to',
      'fosstodon.org',
      'hachyderm.io',
      'infosec.exchange',
    ],
    sources: ['mastodon'],
  },
  {
    name: 'Hacker News',
    category: 'social',
    hosts: ['news.ycombinator.com'],
    sources: ['hackernews', 'hacker news', 'hn'],
  },
  {
    name: 'Product Hunt',
    category: 'social',
    hosts: ['producthunt.com'],
    sources: ['producthunt', 'product hunt'],
  },
  {
    name: 'Discord',
    category: 'social',
    hosts: ['discord.com', 'discordapp.com', 'discord.gg'],
    sources: ['discord'],
  },
  {
    name: 'Telegram',
    category: 'social',
    hosts: ['t.me', 'web.telegram.org', 'org.telegram.messenger'],
    sources: ['telegram'],
  },
  {
    name: 'WhatsApp',
    category: 'social',
    hosts: ['wa.me', 'web.whatsapp.com', 'com.whatsapp'],
    sources: ['whatsapp'],
  },
  { name: 'Slack', category: 'social', hosts: ['*.slack.com', 'com.slack'], sources: ['slack'] },
  { name: 'VK', category: 'social', hosts: ['*.vk.com'], sources: ['vk'] },
  { name: 'OK', category: 'social', hosts: ['ok.ru'] },
  { name: 'Weibo', category: 'social', hosts: ['*.weibo.com', 'weibo.cn'], sources: ['weibo'] },
  { name: 'Quora', category: 'social', hosts: ['*.quora.com'], sources: ['quora'] },
  { name: 'Tumblr', category: 'social', hosts: ['*.tumblr.com'], sources: ['tumblr'] },
  { name: 'Medium', category: 'social', hosts: ['*.medium.com'], sources: ['medium'] },
  { name: 'Snapchat', category: 'social', hosts: ['*.snapchat.com'], sources: ['snapchat'] },
  { name: 'Twitch', category: 'social', hosts: ['*.twitch.tv'], sources: ['twitch'] },
  { name: 'LINE', category: 'social', hosts: ['line.me'] },
  { name: 'XING', category: 'social', hosts: ['xing.com'] },
  { name: 'Douban', category: 'social', hosts: ['*.douban.com'] },
  { name: 'Zhihu', category: 'social', hosts: ['*.zhihu.com'] },
  { name: 'Bilibili', category: 'social', hosts: ['*.bilibili.com'] },
  { name: 'Nextdoor', category: 'social', hosts: ['nextdoor.com'] },
];

export const EMAIL_PROVIDERS: readonly KnownSource[] = [
  {
    name: 'Gmail',
    category: 'email',
    hosts: ['mail.google.com', 'com.google.android.gm'],
    sources: ['gmail'],
  },
  {
    name: 'Outlook',
    category: 'email',
    hosts: [
      'outlook.live.com',
      'outlook.office.com',
      'outlook.office365.com',
      'outlook.cloud.microsoft',
      'com.microsoft.office.outlook',
    ],
    sources: ['outlook'],
  },
  { name: 'Yahoo Mail', category: 'email', hosts: ['*.mail.yahoo.com', 'mail.yahoo.co.jp'] },
  { name: 'AOL Mail', category: 'email', hosts: ['mail.aol.com'] },
  {
    name: 'Proton Mail',
    category: 'email',
    hosts: ['mail.proton.me', 'mail.protonmail.com', 'ch.protonmail.android'],
  },
  { name: 'Fastmail', category: 'email', hosts: ['*.fastmail.com'] },
  { name: 'Zoho Mail', category: 'email', hosts: ['mail.zoho.com', 'mail.zoho.eu', 'mail.zoho.in'] },
  { name: 'Yandex Mail', category: 'email', hosts: ['mail.yandex.ru', 'mail.yandex.com'] },
  { name: 'Mail.ru', category: 'email', hosts: ['e.mail.ru'] },
  { name: 'GMX', category: 'email', hosts: ['*.gmx.net', '*.gmx.com', '*.gmx.de'] },
  { name: 'Tuta', category: 'email', hosts: ['app.tuta.com', 'mail.tutanota.com', 'app.tutanota.com'] },
  { name: 'HEY', category: 'email', hosts: ['app.hey.com'] },
  { name: 'Seznam Email', category: 'email', hosts: ['email.seznam.cz'] },
  { name: 'iCloud Mail', category: 'email', paths: [{ host: 'icloud.com', prefix: '/mail' }] },
  { name: 'Naver Mail', category: 'email', hosts: ['mail.naver.com'] },
  { name: 'QQ Mail', category: 'email', hosts: ['mail.qq.com'] },
  { name: 'NetEase Mail', category: 'email', hosts: ['mail.163.com', 'mail.126.com'] },
  {
    name: 'Email',
    category: 'email',
    sources: [
      'email',
      'e-mail',
      'e_mail',
      'e mail',
      'newsletter',
      'mailchimp',
      'mailerlite',
      'sendgrid',
      'klaviyo',
      'convertkit',
      'buttondown',
      'beehiiv',
      'brevo',
    ],
  },
];

export const KNOWN_SOURCES: readonly KnownSource[] = [
  ...AI_ASSISTANTS,
  ...EMAIL_PROVIDERS,
  ...SEARCH_ENGINES,
  ...SOCIAL_NETWORKS,
];

/**
 * Ad click id parameters, in priority order when several are present, with the channel each
 * implies. `fbclid` is added by Facebook and Instagram to every outbound link, paid or not, so
 * alone it means organic social; the others are added only to ad clicks.
 */
export const CLICK_IDS: readonly {
  readonly param: string;
  readonly network: string;
  readonly channel: Channel;
}[] = [
  { param: 'gclid', network: 'Google Ads', channel: 'Paid Search' },
  { param: 'gbraid', network: 'Google Ads', channel: 'Paid Search' },
  { param: 'wbraid', network: 'Google Ads', channel: 'Paid Search' },
  { param: 'msclkid', network: 'Microsoft Advertising', channel: 'Paid Search' },
  { param: 'yclid', network: 'Yandex Direct', channel: 'Paid Search' },
  { param: 'dclid', network: 'Google Display & Video 360', channel: 'Paid Search' },
  { param: 'ttclid', network: 'TikTok Ads', channel: 'Paid Social' },
  { param: 'li_fat_id', network: 'LinkedIn Ads', channel: 'Paid Social' },
  { param: 'twclid', network: 'X Ads', channel: 'Paid Social' },
  { param: 'ScCid', network: 'Snapchat Ads', channel: 'Paid Social' },
  { param: 'epik', network: 'Pinterest Ads', channel: 'Paid Social' },
  { param: 'rdt_cid', network: 'Reddit Ads', channel: 'Paid Social' },
  { param: 'fbclid', network: 'Meta (any outbound link)', channel: 'Organic Social' },
];

/** `utm_medium` values (lowercase) by meaning, after Google Analytics 4's default channel group. */
export const MEDIUMS = {
  /** GA4's paid pattern `^(.*cp.*|ppc|retargeting|paid.*)$`, plus display buying terms. */
  paid: /^(?:.*cp.*|ppc|retargeting|paid.*|display|banner|interstitial|expandable)$/,
  email: new Set(['email', 'e-mail', 'e_mail', 'e mail', 'newsletter', 'newsletters']),
  social: new Set([
    'social',
    'social-network',
    'social-media',
    'sm',
    'social network',
    'social media',
    'organic_social',
    'organic-social',
  ]),
  search: new Set(['organic', 'organic_search', 'organic-search', 'seo']),
  referral: new Set(['referral', 'app', 'link', 'affiliate', 'affiliates', 'partner']),
} as const;
