/**
 * A small bounded least-recently-used cache over a `Map` (which keeps insertion order, so the
 * first key is the oldest). Used for parse results that repeat a lot on the ingest hot path:
 * user agents, Accept-Language values, robot user agents.
 *
 * @example
 * const cache = new Lru<string, number>(2);
 * cache.set('a', 1);
 * cache.get('a'); // 1
 */
export class Lru<K, V> {
  readonly #max: number;
  readonly #map = new Map<K, V>();

  /** @param max most entries kept; the least recently used one goes first */
  constructor(max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError('Lru size must be a positive integer');
    this.#max = max;
  }

  /** The cached value, marked as most recently used; `undefined` when absent. */
  get(key: K): V | undefined {
    const value = this.#map.get(key);
    if (value === undefined) return undefined;
    // Re-insert so the key moves to the young end of the Map's order.
    this.#map.delete(key);
    this.#map.set(key, value);
    return value;
  }

  /** Stores a value, evicting the least recently used entry when full. */
  set(key: K, value: V): void {
    if (this.#map.has(key)) this.#map.delete(key);
    else if (this.#map.size >= this.#max) {
      const oldest = this.#map.keys().next();
      if (!oldest.done) this.#map.delete(oldest.value);
    }
    this.#map.set(key, value);
  }

  get size(): number {
    return this.#map.size;
  }

  clear(): void {
    this.#map.clear();
  }
}
