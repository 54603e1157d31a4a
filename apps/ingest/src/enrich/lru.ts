/**
 * A small bounded cache that keeps what is used: two generations of `Map`s. New and recently used
 * entries live in the young one; when it is full it becomes the old one and the previous old one
 * is dropped whole. An entry found in the old generation moves to the young one, so whatever was
 * used since the last turnover survives the next.
 *
 * It is close to least-recently-used, at less cost per hit: a hit in the young generation is one
 * `Map` lookup, with no reordering. Used for answers that repeat a lot on the ingest hot path:
 * parsed user agents, Accept-Language values, robot user agents, the bot check's verdicts.
 *
 * @example
 * const cache = new Lru<string, number>(2);
 * cache.set('a', 1);
 * cache.get('a'); // 1
 */
export class Lru<K, V> {
  /** entries per generation: the two together hold at most `max` */
  readonly #half: number;
  #young = new Map<K, V>();
  #old = new Map<K, V>();

  /** @param max most entries kept; at least 2 (one per generation) */
  constructor(max: number) {
    if (!Number.isInteger(max) || max < 2) throw new RangeError('Lru size must be an integer of at least 2');
    this.#half = Math.floor(max / 2);
  }

  /** The cached value, kept for the next generation; `undefined` when absent. */
  get(key: K): V | undefined {
    const young = this.#young.get(key);
    if (young !== undefined) return young;
    const old = this.#old.get(key);
    if (old !== undefined) {
      this.#old.delete(key);
      this.#addYoung(key, old);
    }
    return old;
  }

  /** Stores a value in the young generation, turning the generations over when it is full. */
  set(key: K, value: V): void {
    if (this.#young.has(key)) {
      this.#young.set(key, value);
      return;
    }
    this.#old.delete(key);
    this.#addYoung(key, value);
  }

  /** Entries held, both generations together (never more than the bound). */
  get size(): number {
    return this.#young.size + this.#old.size;
  }

  clear(): void {
    this.#young.clear();
    this.#old.clear();
  }

  #addYoung(key: K, value: V): void {
    if (this.#young.size >= this.#half) {
      this.#old = this.#young;
      this.#young = new Map();
    }
    this.#young.set(key, value);
  }
}
