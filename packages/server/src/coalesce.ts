/**
 * Joins the pieces of a byte stream into pieces of at least `bytes` (the last may be shorter): a
 * response written in fewer, larger writes costs fewer system calls and chunk frames per byte.
 * Pieces held when the source fails are dropped with it.
 */
export async function* coalesce(source: AsyncIterable<Uint8Array>, bytes: number): AsyncGenerator<Uint8Array> {
  let held: Uint8Array[] = [];
  let length = 0;
  for await (const piece of source) {
    held.push(piece);
    length += piece.byteLength;
    if (length >= bytes) {
      yield join(held, length);
      held = [];
      length = 0;
    }
  }
  if (length > 0) yield join(held, length);
}

function join(pieces: Uint8Array[], length: number): Uint8Array {
  return pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, length);
}
