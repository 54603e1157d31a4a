import type { Device } from '@footfall/schema';
import parseUa from 'ua-parser-js';
import { Lru } from './lru.ts';

/** The parts of a user agent that reports break down by. */
export interface UserAgentInfo {
  /** e.g. 'Chrome', 'Safari', 'Firefox', 'Edge', 'Samsung Internet'; null when unknown */
  browser: string | null;
  /** major version only, e.g. '122' */
  browserVersion: string | null;
  /** e.g. 'Windows', 'macOS', 'iOS', 'Android', 'Linux', 'ChromeOS' */
  os: string | null;
  /** major version, or major.minor for macOS 10.x, or Windows' own names ('7', '8.1', '10') */
  osVersion: string | null;
  device: Device;
}

/**
 * Names merged so one browser is one row: the device column already says "mobile", so
 * iOS Safari is 'Safari', not 'Mobile Safari'. Other names are kept as ua-parser-js gives them.
 */
const BROWSER_NAMES: Readonly<Record<string, string>> = {
  'Mobile Safari': 'Safari',
  'Mobile Firefox': 'Firefox',
  'Mobile Chrome': 'Chrome',
  'Chrome Mobile': 'Chrome',
  'Opera Mobi': 'Opera',
  'Opera Touch': 'Opera',
  'Opera Mini': 'Opera Mini',
  IE: 'Internet Explorer',
  IEMobile: 'Internet Explorer',
  GSA: 'Google App',
  Yandex: 'Yandex Browser',
  'Chrome WebView': 'Android WebView',
};

const OS_NAMES: Readonly<Record<string, string>> = {
  'Mac OS': 'macOS',
  'Chromium OS': 'ChromeOS',
  'Chrome OS': 'ChromeOS',
};

/** Longer user agents are parsed but not cached, so a flood of junk cannot crowd the cache. */
const MAX_CACHED_UA = 512;
const cache = new Lru<string, UserAgentInfo>(2000);

function osVersionOf(os: string | null, version: string | undefined): string | null {
  if (version === undefined || version === '') return null;
  if (os === 'Windows') return version;
  const dot = version.indexOf('.');
  if (dot < 0) return version;
  // macOS 10.x spent 16 releases under one major number: 10.15 is the useful part.
  if (os === 'macOS' && version.startsWith('10.')) {
    const second = version.indexOf('.', dot + 1);
    return second < 0 ? version : version.slice(0, second);
  }
  return version.slice(0, dot);
}

/**
 * Only three device kinds are reported. Wearables count as mobile; consoles, smart TVs and
 * embedded browsers, like an unknown device, count as desktop. An iPad on iPadOS 13+ says it
 * is a Mac and is counted as desktop: nothing in its user agent tells them apart.
 */
function deviceOf(type: string | undefined): Device {
  if (type === 'mobile' || type === 'wearable') return 'mobile';
  if (type === 'tablet') return 'tablet';
  return 'desktop';
}

function cut(value: string | null, max: number): string | null {
  return value !== null && value.length > max ? value.slice(0, max) : value;
}

/**
 * Browser, OS and device type of a user agent (ua-parser-js@1), with normalised names,
 * cut to the WAL record's field lengths. Results are cached in a bounded LRU.
 *
 * @example
 * parseUserAgent('Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) ... Version/17.4 Mobile/15E148 Safari/604.1');
 * // { browser: 'Safari', browserVersion: '17', os: 'iOS', osVersion: '17', device: 'mobile' }
 */
export function parseUserAgent(userAgent: string): UserAgentInfo {
  const cached = cache.get(userAgent);
  if (cached !== undefined) return cached;
  const result = parseUa(userAgent);
  const rawBrowser = result.browser.name;
  const rawOs = result.os.name;
  const os = rawOs === undefined ? null : (OS_NAMES[rawOs] ?? rawOs);
  const info: UserAgentInfo = Object.freeze({
    browser: cut(rawBrowser === undefined ? null : (BROWSER_NAMES[rawBrowser] ?? rawBrowser), 64),
    browserVersion: cut(result.browser.major || null, 32),
    os: cut(os, 64),
    osVersion: cut(osVersionOf(os, result.os.version), 32),
    device: deviceOf(result.device.type),
  });
  if (userAgent.length <= MAX_CACHED_UA) cache.set(userAgent, info);
  return info;
}
