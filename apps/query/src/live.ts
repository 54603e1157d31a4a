import type { BatchRecord } from './engine/index.ts';

/** What the live stream says about one pageview or event (no visitor id, no address). */
export interface LiveVisit {
  at: string;
  kind: 'pv' | 'ev';
  path: string;
  name: string | null;
  channel: string;
  referrer: string | null;
  country: string | null;
  device: string;
  browser: string | null;
}

type Listener = (visits: LiveVisit[]) => void;

/**
 * Fans committed pageviews and custom events out to the live streams of their site, in memory.
 * The tailer publishes after each commit, so a visit reaches the dashboard within a poll interval.
 */
export class LiveHub {
  readonly #listeners = new Map<string, Set<Listener>>();
  readonly #closers = new Set<() => void>();

  /**
   * Listens to a site's visits; `onClose` runs when the service shuts down (streams end so the
   * drain does not wait for them; browsers reconnect). Returns the unsubscribe function.
   */
  subscribe(site: string, listener: Listener, onClose: () => void = () => {}): () => void {
    let set = this.#listeners.get(site);
    if (set === undefined) {
      set = new Set();
      this.#listeners.set(site, set);
    }
    set.add(listener);
    this.#closers.add(onClose);
    return () => {
      this.#closers.delete(onClose);
      set.delete(listener);
      if (set.size === 0) this.#listeners.delete(site);
    };
  }

  /** Ends every stream (shutdown). */
  closeAll(): void {
    for (const close of [...this.#closers]) close();
  }

  /** Whether a live stream of the site is open (its visits are kept for publish). */
  watching(site: string): boolean {
    return this.#listeners.has(site);
  }

  get listeners(): number {
    let n = 0;
    for (const s of this.#listeners.values()) n += s.size;
    return n;
  }

  publish(records: readonly BatchRecord[]): void {
    if (this.#listeners.size === 0) return;
    const bySite = new Map<string, LiveVisit[]>();
    for (const { record: r } of records) {
      if (r.t !== 'event' || (r.kind !== 'pv' && r.kind !== 'ev') || !this.#listeners.has(r.site)) continue;
      let list = bySite.get(r.site);
      if (list === undefined) {
        list = [];
        bySite.set(r.site, list);
      }
      list.push({
        at: new Date(r.at).toISOString(),
        kind: r.kind,
        path: r.path,
        name: r.name ?? null,
        channel: r.channel,
        referrer: r.referrerHost ?? null,
        country: r.country ?? null,
        device: r.device,
        browser: r.browser ?? null,
      });
    }
    for (const [site, visits] of bySite) for (const l of this.#listeners.get(site) ?? []) l(visits);
  }
}
