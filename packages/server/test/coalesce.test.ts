/** coalesce.ts: the stream routes' fewer, larger response writes keep every byte, in order, and every failure. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { coalesce } from '../src/coalesce.ts';

async function* pieces(lengths: number[], failAfter?: number): AsyncGenerator<Uint8Array> {
  let value = 0;
  for (const [index, length] of lengths.entries()) {
    if (index === failAfter) throw new Error('source failed');
    yield Uint8Array.from({ length }, () => value++ & 0xff);
  }
}

async function collect(source: AsyncIterable<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const piece of source) out.push(piece);
  return out;
}

test('pieces are joined, in order, into pieces of at least the size; the last may be shorter', async () => {
  const lengths = [3, 4, 10, 1, 1, 1, 2, 0, 5, 2];
  const out = await collect(coalesce(pieces(lengths), 6));
  assert.deepEqual(
    out.map((piece) => piece.byteLength),
    [7, 10, 10, 2],
  );
  const total = lengths.reduce((sum, length) => sum + length, 0);
  assert.deepEqual(Buffer.concat(out), Buffer.from(Uint8Array.from({ length: total }, (_, i) => i & 0xff)));
});

test('an empty source yields nothing, and a piece as large as the size passes as it is', async () => {
  assert.deepEqual(await collect(coalesce(pieces([]), 4)), []);
  const only = new Uint8Array(8);
  const out = await collect(coalesce([only].values() as unknown as AsyncIterable<Uint8Array>, 4));
  assert.equal(out[0], only);
});

test("the source's failure reaches the reader, and the pieces held are not delivered", async () => {
  const out: Uint8Array[] = [];
  await assert.rejects(async () => {
    for await (const piece of coalesce(pieces([2, 2, 2, 2], 3), 5)) out.push(piece);
  }, /source failed/);
  assert.deepEqual(
    out.map((piece) => piece.byteLength),
    [6],
  );
});
