/** One event the load will send, with the time it should carry (receive time minus its queue age). */
export interface PlannedEvent {
  id: string;
  visitor: string;
  kind: 'pv' | 'ev';
  path: string;
  /** custom event name (kind `ev`) */
  name?: string;
  /** when it happened, epoch ms: each send sets `a` = now - this, as the tracker does on a retry */
  at: number;
}

const MINUTE = 60_000;
const PATHS = ['/', '/pricing', '/docs', '/docs/install', '/blog', '/blog/launch', '/cart', '/checkout'];
const NAMES = ['Signup', 'Add to cart', 'Download'];

/** A small seeded generator (mulberry32): the same seed plans the same load. */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Plans at least `total` events from a pool of cookie visitors: each visitor has one to three bursts
 * of activity somewhere in the last 20 hours (a burst of one pageview is a bounce; bursts may fall
 * within 30 minutes of each other and so make one visit), gaps of seconds to 25 minutes inside a
 * burst, and about one custom event in five. The list is shuffled, so a visitor's events arrive
 * out of time order, which is what the loader's visit rebuilding has to get right.
 */
export function planEvents(options: { total: number; now: number; seed: number }): PlannedEvent[] {
  const random = seeded(options.seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const events: PlannedEvent[] = [];
  for (let v = 0; events.length < options.total; v++) {
    const visitor = `visitor-${options.seed}-${String(v).padStart(5, '0')}`;
    const bursts = 1 + Math.floor(random() * 3);
    for (let b = 0; b < bursts; b++) {
      let at = options.now - (10 * MINUTE + Math.floor(random() * 20 * 60 * MINUTE));
      const size = random() < 0.25 ? 1 : 2 + Math.floor(random() * 7);
      for (let n = 0; n < size; n++) {
        const custom = n > 0 && random() < 0.2;
        const id = `ev${options.seed}x${String(events.length).padStart(6, '0')}`;
        events.push(
          custom
            ? { id, visitor, kind: 'ev', path: pick(PATHS), name: pick(NAMES), at }
            : { id, visitor, kind: 'pv', path: pick(PATHS), at },
        );
        at = Math.min(options.now, at + 5_000 + Math.floor(random() * 25 * MINUTE));
      }
    }
  }
  for (let i = events.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [events[i], events[j]] = [events[j]!, events[i]!];
  }
  return events;
}
