import type { WalEvent } from '@footfall/schema';
import { type AccountsApp, accountsApp, type CallOptions } from '../accounts/harness.ts';
import { Contract, loadApiDoc, sseEvents } from './contract.ts';

/** One answer, read whole, already checked against docs/openapi.yaml. */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

/** A site id that exists nowhere. */
export const UNKNOWN_ID = 'zzzzzzzzzz';

/**
 * The in-process query app (tests/accounts/harness.ts, with the analytics engine in memory) whose
 * every answer is held against the document: what does not match lands in `contract.problems`.
 */
export async function documentedApp(
  contract: CheckedContract,
  options: Parameters<typeof accountsApp>[0] = {},
) {
  const h = await accountsApp(options);

  async function call(method: string, path: string, o: CallOptions = {}): Promise<Answer> {
    const res = await h.call(method, path, o);
    const text = await res.text();
    contract.problems.push(...contract.checkAnswer(method, path, res, text, o.body));
    return { status: res.status, headers: res.headers, text, json: <T>() => JSON.parse(text) as T };
  }

  /**
   * Opens the live stream, runs `meanwhile` once it is ready, reads events until `enough` says
   * so, then closes it. Checks the answer's headers and every event's data against the document.
   */
  async function live(
    path: string,
    o: CallOptions,
    meanwhile: () => void,
    enough: (events: { event: string; data: string }[]) => boolean,
  ): Promise<{ status: number; events: { event: string; data: unknown }[] }> {
    const res = await h.call('GET', path, o);
    if (res.status !== 200 || !res.body) {
      const text = await res.text();
      contract.problems.push(...contract.checkAnswer('GET', path, res, text));
      return { status: res.status, events: [] };
    }
    contract.problems.push(...contract.checkAnswer('GET', path, res, ''));
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let started = false;
    while (!enough(sseEvents(text))) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
      if (!started && sseEvents(text).some((e) => e.event === 'ready')) {
        started = true;
        meanwhile();
      }
    }
    await reader.cancel();
    const events = sseEvents(text).map((e) => ({ event: e.event, data: JSON.parse(e.data) as unknown }));
    const schemas: Record<string, string> = { ready: 'LiveReady', visits: 'LiveVisits' };
    for (const e of events) {
      const schema = schemas[e.event];
      if (!schema) contract.problems.push(`live: undocumented event ${e.event}`);
      else
        for (const p of contract.validate(`#/components/schemas/${schema}`, e.data))
          contract.problems.push(`live ${e.event}: ${p}`);
    }
    return { status: res.status, events };
  }

  return { ...h, call, live, unchecked: h.call };
}

export type DocumentedApp = Awaited<ReturnType<typeof documentedApp>> & Omit<AccountsApp, 'call'>;

/** The contract plus the problems found so far (each test asserts the list is empty). */
export interface CheckedContract extends Contract {
  problems: string[];
}

/** Loads docs/openapi.yaml once per test file. */
export async function loadContract(): Promise<CheckedContract> {
  const { doc, errors } = await loadApiDoc();
  if (errors) throw new Error(`docs/openapi.yaml is not valid OpenAPI 3.1: ${JSON.stringify(errors)}`);
  return Object.assign(new Contract(doc), { problems: [] as string[] });
}

let n = 0;
/** A WAL event (a pageview unless `fields` say otherwise), as ingest would have enriched it. */
export function walEvent(site: string, at: number, fields: Partial<WalEvent> = {}): WalEvent {
  n++;
  return {
    t: 'event',
    id: `apidocs-${n.toString().padStart(6, '0')}`,
    site,
    at,
    kind: 'pv',
    host: 'example.com',
    path: '/',
    visitor: 'visitor-one',
    idMode: 'cookie',
    channel: 'Direct',
    device: 'desktop',
    browser: 'Chrome',
    os: 'Windows',
    country: 'DE',
    language: 'de',
    ...fields,
  };
}

/** A JSON text over the 64 KB body limit of the query service. */
export const OVERSIZED = JSON.stringify({ pad: 'x'.repeat(70 * 1024) });
