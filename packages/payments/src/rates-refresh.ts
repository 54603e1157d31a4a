import { type Logger, loadUndici } from '@footfall/http';
import type { RateStore } from './rates-store.ts';
import { parseEcbXml } from './rates-xml.ts';

/** Where the ECB publishes its euro reference rates. */
export const ECB_BASE_URL = 'https://www.ecb.europa.eu/stats/eurofxref/';
/** Every day since 1999 (a few MB). */
export const ECB_FULL_HISTORY = 'eurofxref-hist.xml';
/** The last 90 days. */
export const ECB_RECENT_HISTORY = 'eurofxref-hist-90d.xml';

/** How old the newest day held may be for the 90-day file still to close the gap, with room. */
const RECENT_REACH_DAYS = 85;
/** The full history is some 7 MB; anything far larger is not the file we asked for. */
const MAX_DOWNLOAD_BYTES = 64 * 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;

/** What refreshRates needs: the store to fill, and where and how long to look. */
export interface RefreshRatesOptions {
  store: RateStore;
  /** the folder the ECB files are in; ECB_BASE_URL unless a test or a mirror says otherwise */
  baseUrl?: string;
  /** how long the whole download may take, from connecting to the last byte */
  fetchTimeoutMs?: number;
  logger?: Pick<Logger, 'info' | 'warn'>;
  /** the clock, in ms since the epoch */
  now?: () => number;
}

/** What a refresh did: the store's days and newest day afterwards, or why nothing changed. */
export type RefreshResult =
  | { ok: true; file: string; days: number; added: number; newest: string }
  | { ok: false; error: string };

/**
 * Which ECB file brings a store whose newest day is `newest` up to date on `today` (both
 * 'YYYY-MM-DD'): the full history for an empty store or one more than 85 days behind, else the
 * 90-day file.
 */
export function ecbFileFor(newest: string | undefined, today: string): string {
  if (newest === undefined) return ECB_FULL_HISTORY;
  const behind = (Date.parse(`${today}T00:00:00Z`) - Date.parse(`${newest}T00:00:00Z`)) / DAY_MS;
  return behind > RECENT_REACH_DAYS ? ECB_FULL_HISTORY : ECB_RECENT_HISTORY;
}

/** A failure whose message is fit for the operator to read as it is. */
class RefreshFailure extends Error {}

function reasonOf(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}${typeof code === 'string' && !error.message.includes(code) ? ` (${code})` : ''}`;
  }
  return String(error);
}

/** Reads the answer's body as text, refusing one larger than MAX_DOWNLOAD_BYTES. */
async function readBody(body: AsyncIterable<Buffer>, source: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_DOWNLOAD_BYTES) {
      throw new RefreshFailure(`${source} is larger than ${MAX_DOWNLOAD_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * GETs `url` as text with only a plain User-Agent, through a connection pool of its own that is
 * closed afterwards. Throws a RefreshFailure saying what went wrong: unreachable, no complete
 * answer in time, an HTTP status other than 200.
 */
async function download(url: URL, timeoutMs: number): Promise<string> {
  const signal = AbortSignal.timeout(timeoutMs);
  // undici loads with the first download: a process that never makes one does not hold it
  const { Agent, request } = await loadUndici();
  const agent = new Agent({
    connect: { timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  try {
    const { statusCode, body } = await request(url, {
      method: 'GET',
      headers: { 'user-agent': 'Footfall' },
      dispatcher: agent,
      signal,
    });
    if (statusCode !== 200) {
      await body.dump().catch(() => undefined);
      throw new RefreshFailure(`${url.host} answered HTTP ${statusCode} for ${url.pathname}`);
    }
    return await readBody(body, url.href);
  } catch (error) {
    if (error instanceof RefreshFailure) throw error;
    if (signal.aborted)
      throw new RefreshFailure(`no complete answer from ${url.host} within ${timeoutMs} ms`);
    throw new RefreshFailure(`could not download from ${url.host}: ${reasonOf(error)}`);
  } finally {
    await agent.destroy().catch(() => undefined);
  }
}

/** `baseUrl` with a closing slash, so that file names resolve inside it rather than beside it. */
function folderUrl(baseUrl: string): URL {
  try {
    const url = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('not http(s)');
    return url;
  } catch {
    throw new RefreshFailure(`the rates address ${JSON.stringify(baseUrl)} is not an http(s) URL`);
  }
}

async function refresh(options: RefreshRatesOptions): Promise<RefreshResult & { ok: true }> {
  const { store, baseUrl = ECB_BASE_URL, fetchTimeoutMs = 20_000, now = Date.now } = options;
  const today = new Date(now()).toISOString().slice(0, 10);
  const file = ecbFileFor(store.newest, today);
  const url = new URL(file, folderUrl(baseUrl));
  const text = await download(url, fetchTimeoutMs);
  let rates: ReturnType<typeof parseEcbXml>;
  try {
    rates = parseEcbXml(text);
  } catch (error) {
    throw new RefreshFailure(`${file} from ${url.host}: ${reasonOf(error)}`);
  }
  let added: number;
  try {
    ({ added } = store.merge(rates));
  } catch (error) {
    throw new RefreshFailure(`could not save the rates to ${store.path}: ${reasonOf(error)}`);
  }
  return { ok: true, file, days: store.days, added, newest: store.newest as string };
}

/**
 * Brings the store up to date from the ECB: the full history when it is empty or more than 85 days
 * behind, else the last 90 days; parsed, merged (no day held is lost) and written. Sends nothing
 * about the instance: a GET with `User-Agent: Footfall` and no other header of ours.
 *
 * Never throws. Answers `{ ok: true, days, newest, ... }` with the store's state afterwards, or
 * `{ ok: false, error }` with a reason an operator can act on (unreachable, timed out, an HTTP
 * status, not a rates file, the file not writable), the store then unchanged.
 *
 * @example
 * const result = await refreshRates({ store, logger });
 * if (!result.ok) console.log(`rates not refreshed: ${result.error}`);
 */
export async function refreshRates(options: RefreshRatesOptions): Promise<RefreshResult> {
  try {
    const result = await refresh(options);
    options.logger?.info(
      { file: result.file, days: result.days, added: result.added, newest: result.newest },
      'ECB rates refreshed',
    );
    return result;
  } catch (error) {
    const reason = error instanceof RefreshFailure ? error.message : `unexpected: ${reasonOf(error)}`;
    options.logger?.warn({ error: reason }, 'ECB rates not refreshed');
    return { ok: false, error: reason };
  }
}
