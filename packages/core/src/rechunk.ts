/**
 * Cuts a stream of byte arrays of any sizes into pieces of fixed sizes, for a format whose
 * frames are of a fixed length (secretstream-stream.ts): memory stays one piece whatever the
 * stream's length.
 */

/**
 * Yields a first piece of `firstLength` bytes, then pieces of `length` bytes, each marked whether
 * it is the stream's last; the last may be shorter, and is empty only when the stream is empty (or
 * ends right after the first piece). At least one piece is always yielded.
 *
 * With `reuse`, a piece's memory is handed out again two pieces later: for a consumer that is done
 * with each piece before asking for the next (a cipher), so that a stream of any length allocates
 * two pieces' worth in all.
 */
export async function* rechunk(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  firstLength: number,
  length: number,
  options: { reuse?: boolean } = {},
): AsyncGenerator<{ piece: Uint8Array; last: boolean }> {
  const spares: Uint8Array[] = [];
  const fresh = (size: number) => (size === length ? spares.pop() : undefined) ?? new Uint8Array(size);
  let size = firstLength;
  let piece = fresh(size);
  let filled = 0;
  // A full piece is held back until the next byte arrives, so that the last one can be told.
  let held: Uint8Array | undefined;
  for await (const input of source) {
    let offset = 0;
    while (offset < input.byteLength) {
      if (held !== undefined) {
        yield { piece: held, last: false };
        if (options.reuse === true && held.byteLength === length) spares.push(held);
        held = undefined;
      }
      const take = Math.min(size - filled, input.byteLength - offset);
      piece.set(input.subarray(offset, offset + take), filled);
      filled += take;
      offset += take;
      if (filled === size) {
        held = piece;
        size = length;
        piece = fresh(size);
        filled = 0;
      }
    }
  }
  if (held !== undefined && filled === 0) {
    yield { piece: held, last: true };
    return;
  }
  if (held !== undefined) yield { piece: held, last: false };
  yield { piece: piece.subarray(0, filled), last: true };
}
