/**
 * What a browser context sent to a gateway's `POST /api/e`, seen from the browser side through
 * Playwright's network events: every request the page makes is reported, whether or not any
 * server answered, so "nothing was sent" does not depend on a server that may drop events itself
 * (the real gateway answers Do Not Track and bots with a silent 202).
 */
import type { IngestEvent } from '@footfall/schema';
import type { BrowserContext, Request } from 'playwright-core';

/** A body the tracker sends: it always carries an event id (only server senders may leave it out). */
export type TrackerEvent = IngestEvent & { i: string };

/** One attempt: the body as sent and how it ended (an HTTP status, or `failed` without one). */
export interface Attempt {
  event: TrackerEvent;
  outcome: number | 'failed' | 'pending';
}

export interface Traffic {
  /** Every `POST /api/e` attempt in the order the browser made them. */
  attempts(): Attempt[];
  /** Events the server took (2xx), one entry per acceptance, repeats included. */
  accepted(): TrackerEvent[];
  /** Attempts the server refused with 4xx: a body the tracker should never have sent. */
  refused(): Attempt[];
}

/**
 * Starts recording the context's requests to `<gatewayUrl>/api/e`; call before the first page
 * opens. Bodies are read as JSON and typed as IngestEvent: the gateway is the one that checks
 * them, and a 4xx from it shows up in `refused()`.
 */
export function watchTraffic(context: BrowserContext, gatewayUrl: string): Traffic {
  const endpoint = `${gatewayUrl}/api/e`;
  const attempts = new Map<Request, Attempt>();
  context.on('request', (request) => {
    if (request.url() !== endpoint || request.method() !== 'POST') return;
    attempts.set(request, {
      event: JSON.parse(request.postData() ?? 'null') as TrackerEvent,
      outcome: 'pending',
    });
  });
  context.on('response', (response) => {
    const attempt = attempts.get(response.request());
    if (attempt) attempt.outcome = response.status();
  });
  context.on('requestfailed', (request) => {
    // Chromium reports keepalive requests as aborted once they end, even after their answer.
    const attempt = attempts.get(request);
    if (attempt?.outcome === 'pending') attempt.outcome = 'failed';
  });
  const all = () => [...attempts.values()];
  const is2xx = (a: Attempt) => typeof a.outcome === 'number' && a.outcome >= 200 && a.outcome < 300;
  return {
    attempts: all,
    accepted: () =>
      all()
        .filter(is2xx)
        .map((a) => a.event),
    refused: () => all().filter((a) => typeof a.outcome === 'number' && a.outcome >= 400 && a.outcome < 500),
  };
}
