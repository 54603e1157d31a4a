/**
 * A Bloom filter of 64-bit keys: "certainly not there", or "maybe". The visitor store asks it
 * before reading SQLite, so a visitor never seen costs no read (most visitors of a batch are new).
 * About 10 bits a key, 7 probes: under 1 % false "maybe"s at capacity.
 */
export class KeyFilter {
  readonly #bits: Uint32Array;
  readonly #size: number;
  #count = 0;

  constructor(readonly capacity: number) {
    this.#size = Math.max(64, Math.ceil(capacity * 10));
    this.#bits = new Uint32Array(Math.ceil(this.#size / 32));
  }

  /** Keys added so far (past `capacity`, the filter answers "maybe" more often). */
  get count(): number {
    return this.#count;
  }

  add(key: bigint): void {
    this.#probe(key, (i) => {
      this.#bits[i >>> 5]! |= 1 << (i & 31);
      return true;
    });
    this.#count++;
  }

  mightHave(key: bigint): boolean {
    return this.#probe(key, (i) => (this.#bits[i >>> 5]! & (1 << (i & 31))) !== 0);
  }

  /** Visits the key's 7 bit positions (double hashing on its two 32-bit halves) while `at` says go on. */
  #probe(key: bigint, at: (bit: number) => boolean): boolean {
    const h1 = Number(key & 0xffffffffn);
    const h2 = Number((key >> 32n) & 0xffffffffn) | 1;
    for (let k = 0; k < 7; k++) {
      if (!at(((h1 + Math.imul(k, h2)) >>> 0) % this.#size)) return false;
    }
    return true;
  }
}
