/** A UTC time range, unix ms, both ends inclusive. */
export interface TimeRange {
  from: number;
  to: number;
}

interface Touch extends TimeRange {
  gen: number;
  site: string;
}

interface Entry {
  gen: number;
  site: string;
  ranges: TimeRange[];
  value: unknown;
}

/** A visit's start can lie before the late event that changes it; and days are local (UTC±14 h). */
const SLACK_MS = 24 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Caches report answers and never answers with numbers older than the last commit that touched
 * their range: every committed batch is noted with the sites and time span it changed, and an
 * entry is used only while no later batch touched its site within its ranges (widened by a day,
 * since a late event can change a visit that began earlier, and counters are kept per local day).
 */
export class ReportCache {
  #gen = 0;
  #touches: Touch[] = [];
  /** touches older than this generation were forgotten: entries from before it are stale */
  #horizon = 0;
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;
  readonly #maxTouches: number;

  constructor(options: { maxEntries?: number; maxTouches?: number } = {}) {
    this.#maxEntries = options.maxEntries ?? 500;
    this.#maxTouches = options.maxTouches ?? 5000;
  }

  /** Records what a committed batch changed: per site, the time its records reach. */
  noteBatch(spans: ReadonlyMap<string, TimeRange>): void {
    const gen = ++this.#gen;
    for (const [site, span] of spans)
      this.#touches.push({ gen, site, from: span.from - SLACK_MS, to: span.to + SLACK_MS });
    if (this.#touches.length > this.#maxTouches) {
      const dropped = this.#touches.splice(0, this.#touches.length - this.#maxTouches);
      this.#horizon = dropped.at(-1)!.gen;
    }
  }

  /** Forgets everything of a site (deleted). */
  forgetSite(site: string): void {
    this.#touches.push({ gen: ++this.#gen, site, from: -Infinity, to: Infinity });
  }

  /**
   * The generation (committed batches noted so far). Read it before a query starts and store the
   * answer under it: an answer is only as new as the data the query could see, and a batch noted
   * while the query ran must make it stale.
   */
  get generation(): number {
    return this.#gen;
  }

  /** answers found here, and looked for in vain, since start (for /metrics) */
  hits = 0;
  misses = 0;

  get<T>(key: string): T | undefined {
    const e = this.#entries.get(key);
    if (e !== undefined && (e.gen < this.#horizon || this.#touched(e))) this.#entries.delete(key);
    else if (e !== undefined) {
      this.hits++;
      return e.value as T;
    }
    this.misses++;
    return undefined;
  }

  /** Stores an answer computed by a query that started at generation `gen` (see `generation`). */
  set(key: string, site: string, ranges: TimeRange[], value: unknown, gen: number): void {
    if (gen < this.#horizon) return;
    if (this.#entries.size >= this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, { gen, site, ranges, value });
  }

  #touched(e: Entry): boolean {
    for (let i = this.#touches.length - 1; i >= 0; i--) {
      const t = this.#touches[i]!;
      if (t.gen <= e.gen) break;
      if (t.site === e.site && e.ranges.some((r) => t.from <= r.to && r.from <= t.to)) return true;
    }
    return false;
  }
}

/** The UTC span of local dates `from`..`to`, widened by a day each side (no zone is further off). */
export function dateRangeSpan(from: string, to: string): TimeRange {
  return { from: Date.parse(`${from}T00:00:00Z`) - DAY_MS, to: Date.parse(`${to}T00:00:00Z`) + 2 * DAY_MS };
}
