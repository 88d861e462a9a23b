/**
 * Reads a stream of byte arrays of any sizes as a sequence: a header of known length first, then
 * the rest as it comes, without holding more than one input array.
 */
export class ByteReader {
  private readonly iterator: AsyncIterator<Uint8Array>;
  private leftover: Uint8Array = new Uint8Array(0);

  constructor(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>) {
    this.iterator = (
      Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : toAsync(source)[Symbol.asyncIterator]()
    ) as AsyncIterator<Uint8Array>;
  }

  /** Up to `length` bytes: fewer only when the stream ends first. */
  async read(length: number): Promise<Uint8Array> {
    const out = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      if (this.leftover.byteLength === 0) {
        const next = await this.iterator.next();
        if (next.done === true) return out.subarray(0, filled);
        this.leftover = next.value;
        continue;
      }
      const take = Math.min(length - filled, this.leftover.byteLength);
      out.set(this.leftover.subarray(0, take), filled);
      this.leftover = this.leftover.subarray(take);
      filled += take;
    }
    return out;
  }

  /** What is left of the stream, starting with bytes already read ahead. */
  async *rest(): AsyncGenerator<Uint8Array> {
    if (this.leftover.byteLength > 0) yield this.leftover;
    this.leftover = new Uint8Array(0);
    for (;;) {
      const next = await this.iterator.next();
      if (next.done === true) return;
      yield next.value;
    }
  }

  /** Lets the source release what it holds (a file, a socket) when the reader stops early. */
  async close(): Promise<void> {
    await this.iterator.return?.();
  }
}

async function* toAsync(source: Iterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  yield* source;
}
