import type { RobotKind } from '@footfall/schema';

/**
 * DATA, not code: the robot tokens `POST /api/crawl` recognises, each with its kind. The AI
 * agents follow the ai.robots.txt project's list (robots.json / table-of-bot-metrics.md, MIT),
 * the search bots are the engines' documented crawler tokens.
 *
 * Kinds (ROBOTS.md beside this file explains the choices):
 * - `ai_assistant`: fetches a page now, for a person's question or task (ChatGPT-User).
 * - `ai_training`: collects pages to train models or sell as training data (GPTBot, CCBot).
 * - `search`: builds a search index, classic or AI (Googlebot, OAI-SearchBot, PerplexityBot).
 *
 * A token is matched case-insensitively as a whole user-agent token (`GPTBot/1.2` holds the
 * token `GPTBot`); a token with a space is matched as a phrase. `Google-Extended` and
 * `Applebot-Extended` are robots.txt controls that never appear in a user agent; they are
 * kept so the list mirrors the robots.txt tokens site owners write.
 *
 * Left out on purpose: tokens too generic to match safely as a word (`Code`, `Spider`,
 * `Operator`, `OpenAI`, `LCC`, `Trae`, `opencode`, `newsai`, `Scrapy`), and robots that are
 * neither AI nor search (link previews such as facebookexternalhit, SEO tools such as
 * AhrefsBot): the gateway discards what it does not recognise.
 */
export interface RobotEntry {
  readonly token: string;
  readonly kind: RobotKind;
}

const assistant = (...tokens: string[]): RobotEntry[] =>
  tokens.map((token) => ({ token, kind: 'ai_assistant' }));
const training = (...tokens: string[]): RobotEntry[] =>
  tokens.map((token) => ({ token, kind: 'ai_training' }));
const search = (...tokens: string[]): RobotEntry[] => tokens.map((token) => ({ token, kind: 'search' }));

export const ROBOTS: readonly RobotEntry[] = [
  ...assistant(
    'ChatGPT-User',
    'ChatGPT Agent',
    'Claude-User',
    'Claude-Web',
    'Claude-Code',
    'Perplexity-User',
    'MistralAI-User',
    'DuckAssistBot',
    'Meta-ExternalFetcher',
    'cohere-ai',
    'Gemini-Deep-Research',
    'Google-NotebookLM',
    'NotebookLM',
    'GoogleAgent-Mariner',
    'Google-Agent',
    'Google-Gemini-CLI',
    'Manus-User',
    'NovaAct',
    'Devin',
    'kagi-fetcher',
    'Amzn-User',
    'AmazonBuyForMe',
    'LinerBot',
    'TavilyBot',
    'Poggio-Citations',
    'Shap-User',
    'AI2Bot-DeepResearchEval',
    'bigsur.ai',
  ),
  ...training(
    'GPTBot',
    'ClaudeBot',
    'anthropic-ai',
    'CCBot',
    'Bytespider',
    'TikTokSpider',
    'Google-Extended',
    'GoogleOther',
    'GoogleOther-Image',
    'GoogleOther-Video',
    'Google-CloudVertexBot',
    'CloudVertexBot',
    'Applebot-Extended',
    'Meta-ExternalAgent',
    'FacebookBot',
    'Amazonbot',
    'cohere-training-data-crawler',
    'Diffbot',
    'AI2Bot',
    'Ai2Bot-Dolma',
    'omgili',
    'omgilibot',
    'Webzio-Extended',
    'PanguBot',
    'Timpibot',
    'ImagesiftBot',
    'img2dataset',
    'ICC-Crawler',
    'VelenPublicWebCrawler',
    'Cotoyogi',
    'DeepSeekBot',
    'FirecrawlAgent',
    'FriendlyCrawler',
    'Factset_spyderbot',
    'ISSCyberRiskCrawler',
    'SBIntuitionsBot',
    'LAIONDownloader',
    'laion-huggingface-processor',
    'Kangaroo Bot',
    'Crawlspace',
    'aiHitBot',
    'Brightbot',
    'ChatGLM-Spider',
    'ApifyWebsiteContentCrawler',
    'Sidetrade indexer bot',
    'Linguee Bot',
  ),
  ...search(
    // AI search indexers: they build an index that answers cite later, like a search engine.
    'OAI-SearchBot',
    'Claude-SearchBot',
    'PerplexityBot',
    'YouBot',
    'Amzn-SearchBot',
    'AzureAI-SearchBot',
    'meta-webindexer',
    'PhindBot',
    'Andibot',
    'iaskspider',
    'ExaBot',
    'LinkupBot',
    'YandexAdditional',
    'YandexAdditionalBot',
    'Cloudflare-AutoRAG',
    'atlassian-bot',
    'Anomura',
    'AddSearchBot',
    'IbouBot',
    // Search engines.
    'Googlebot',
    'Googlebot-Image',
    'Googlebot-News',
    'Googlebot-Video',
    'Storebot-Google',
    'Google-InspectionTool',
    'bingbot',
    'msnbot',
    'BingPreview',
    'DuckDuckBot',
    'DuckDuckBot-Https',
    'YandexBot',
    'YandexImages',
    'YandexMobileBot',
    'Baiduspider',
    'Applebot',
    'Slurp',
    'Yeti',
    'SeznamBot',
    'Sogou web spider',
    '360Spider',
    'coccocbot-web',
    'MojeekBot',
    'PetalBot',
    'Bravebot',
  ),
];
