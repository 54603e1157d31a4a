/**
 * A compact byte form for visitor records (store.ts): unsigned varints (7 bits a byte, up to 2^53,
 * times as deltas from a base) and length-prefixed UTF-8 strings.
 */

export class ByteWriter {
  #buf = Buffer.allocUnsafe(256);
  #at = 0;

  #room(n: number): void {
    if (this.#at + n <= this.#buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.#at + n));
    this.#buf.copy(grown, 0, 0, this.#at);
    this.#buf = grown;
  }

  /** A non-negative integer below 2^53. */
  uint(value: number): void {
    if (!Number.isSafeInteger(value) || value < 0)
      throw new Error(`visitor record: ${value} is not a varint`);
    this.#room(8);
    let v = value;
    while (v >= 0x80) {
      this.#buf[this.#at++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.#buf[this.#at++] = v;
  }

  string(value: string): void {
    const bytes = Buffer.byteLength(value);
    this.uint(bytes);
    this.#room(bytes);
    this.#at += this.#buf.write(value, this.#at);
  }

  /** The bytes written (a copy). */
  bytes(): Buffer {
    return Buffer.from(this.#buf.subarray(0, this.#at));
  }
}

export class ByteReader {
  #at = 0;
  constructor(readonly buf: Uint8Array) {}

  uint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = this.buf[this.#at++];
      if (byte === undefined) throw new Error('visitor record: truncated');
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
  }

  string(): string {
    const length = this.uint();
    const start = this.#at;
    this.#at += length;
    return Buffer.from(this.buf.buffer, this.buf.byteOffset + start, length).toString('utf8');
  }
}
