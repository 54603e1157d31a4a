import type { RobotKind } from '@footfall/schema';
import { Lru } from './lru.ts';
import { ROBOTS, type RobotEntry } from './robots-data.ts';

/** A recognised robot: its canonical token as written in ROBOTS, and its kind. */
export interface Robot {
  robot: string;
  kind: RobotKind;
}

const byToken = new Map<string, Robot>();
const phrases: { phrase: string; robot: Robot }[] = [];
for (const entry of ROBOTS as readonly RobotEntry[]) {
  const robot: Robot = Object.freeze({ robot: entry.token, kind: entry.kind });
  const key = entry.token.toLowerCase();
  if (key.includes(' ')) phrases.push({ phrase: key, robot });
  else byToken.set(key, robot);
}

/** Everything that is not part of a token separates tokens: `/`, `;`, `(`, space, `+`, `@`, ... */
const SEPARATORS = /[^a-z0-9._-]+/;
const MAX_CACHED_UA = 512;
const cache = new Lru<string, Robot | null>(1000);

/**
 * The entry for one user-agent token: the token itself, else the token with trailing
 * `-suffix` parts removed one at a time (`Googlebot-Mobile` falls back to `Googlebot`, while
 * `Googlebot-Image` has an entry of its own and is found first).
 */
function lookupToken(token: string): Robot | undefined {
  let candidate = token;
  for (;;) {
    const hit = byToken.get(candidate);
    if (hit !== undefined) return hit;
    const dash = candidate.lastIndexOf('-');
    if (dash <= 0) return undefined;
    candidate = candidate.slice(0, dash);
  }
}

function classify(userAgent: string): Robot | null {
  const lower = userAgent.toLowerCase();
  let best: Robot | null = null;
  for (const token of lower.split(SEPARATORS)) {
    if (token === '') continue;
    const hit = lookupToken(token);
    // The longest token is the most specific: Googlebot-Image over Googlebot.
    if (hit !== undefined && (best === null || hit.robot.length > best.robot.length)) best = hit;
  }
  for (const { phrase, robot } of phrases) {
    if ((best === null || robot.robot.length > best.robot.length) && lower.includes(phrase)) best = robot;
  }
  return best;
}

/**
 * Recognises the robot behind a crawl hit's user agent. Null when it is not a known AI or
 * search robot (the gateway then discards the hit). Results are cached in a bounded LRU:
 * robot user agents repeat almost exactly.
 *
 * @example
 * classifyRobot('Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)');
 * // { robot: 'GPTBot', kind: 'ai_training' }
 */
export function classifyRobot(userAgent: string | undefined | null): Robot | null {
  if (userAgent === undefined || userAgent === null || userAgent === '') return null;
  const cached = cache.get(userAgent);
  if (cached !== undefined) return cached;
  const result = classify(userAgent);
  if (userAgent.length <= MAX_CACHED_UA) cache.set(userAgent, result);
  return result;
}
