import { API, COOKIELESS } from './config.ts';
import { off } from './state.ts';
import { QUEUE_KEY } from './store.ts';

/** One event as sent to `POST /api/e` (see @footfall/schema IngestEventSchema). */
export type Payload = { i: string } & Record<string, unknown>;
/** A queued event and `t`, when it was made (epoch ms), from which `a` tells the server its age. */
type Entry = Payload & { t: number };

let memory: Entry[] = [];
const inFlight = new Set<string>();
let failures = 0;
let retryAt = 0;

// Cookie mode reads localStorage every time: other tabs of the site share the queue, and an entry
// must survive a reload until the server has it. Cookieless mode (or blocked storage) keeps memory.
const load = (): Entry[] => {
  try {
    if (!COOKIELESS) memory = JSON.parse(localStorage[QUEUE_KEY] || '[]');
  } catch {
    // storage blocked or garbled: the in-memory queue stands in
  }
  return memory.filter((entry) => entry.t > Date.now() - 864e5); // entries expire after 24 hours
};

const save = (queue: Entry[]): void => {
  if (off) return;
  memory = queue.slice(-200); // at most 200 events, the newest
  try {
    if (!COOKIELESS) localStorage[QUEUE_KEY] = JSON.stringify(memory);
  } catch {
    // quota or blocked storage: the event still goes out from memory while the page is open
  }
};

/** Drops every queued event (consent declined). */
export const dropQueue = (): void => {
  memory = [];
};

/** Queues an event and tries to send it. */
export const enqueue = (event: Payload): void => {
  save([...load(), { ...event, t: Date.now() }]);
  flush();
};

// retryMs: -1 when the event is done, else the server's Retry-After (0: none, or a network error).
const settled = (entry: Entry, retryMs: number): void => {
  inFlight.delete(entry.i);
  if (retryMs < 0) {
    failures = retryAt = 0;
    save(load().filter((other) => other.i !== entry.i));
  } else if (Date.now() >= retryAt) {
    // Only the first failure of a round counts (several may be on the way after a hide).
    const wait = Math.min(36e5, retryMs || 500 * 2 ** ++failures);
    retryAt = Date.now() + wait;
    setTimeout(flush, wait);
  }
  flush();
};

/**
 * Sends the oldest queued event, one request at a time, so a server that is down sees one probe per
 * backoff step rather than the whole queue. `all` (the page is being hidden) sends everything not
 * already on the way at once, since this may be the last chance.
 *
 * keepalive lets a request outlive the page (a click that navigates away) and, unlike sendBeacon,
 * still shows us the answer while the page lives, which decides whether the event leaves the queue.
 */
export const flush = (all?: boolean): void => {
  for (const entry of load()) {
    if (off || (!all && (inFlight.size || Date.now() < retryAt))) return;
    if (inFlight.has(entry.i)) continue;
    inFlight.add(entry.i);
    fetch(API, {
      method: 'POST',
      keepalive: true,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...entry, t: undefined, a: Math.max(0, Date.now() - entry.t) }),
    }).then(
      // Anything but 5xx or 429 means the server has the event (or will never take it): done.
      (res) =>
        settled(entry, res.status < 500 && res.status !== 429 ? -1 : +res.headers.get('Retry-After')! * 1e3),
      () => settled(entry, 0),
    );
  }
};
