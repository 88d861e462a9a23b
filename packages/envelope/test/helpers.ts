/** Shared by the envelope's tests: byte sources, collection, and the two wrapping keys of a service. */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { TestCryptoService } from '@crypto-service/testing/node-test';
import type { UnwrappingKey, WrappingKey } from '../src/index.ts';

export async function collect(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const part of source) parts.push(part);
  return Buffer.concat(parts);
}

/** A Node destination that keeps what it is given in `parts`. */
export function sink(parts: Buffer[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      parts.push(chunk);
      done();
    },
  });
}

/** `bytes` cut into pieces of `size`, as a stream would deliver them. */
export function* pieces(bytes: Uint8Array, size: number): Generator<Uint8Array> {
  for (let offset = 0; offset < bytes.byteLength; offset += size) yield bytes.subarray(offset, offset + size);
}

export interface KeyPairs {
  wrap: WrappingKey;
  unwrap: UnwrappingKey;
}

export function aesKw(kek: string, keyId = 'kek-1'): KeyPairs {
  return { wrap: { mode: 'aes-kw', keyId, kek }, unwrap: { mode: 'aes-kw', keyId, kek } };
}

export function xWing(service: TestCryptoService, keyId = 'recipient-1'): KeyPairs {
  const { publicKey, privateKey } = service.fixtures.xWing;
  return { wrap: { mode: 'x-wing', keyId, publicKey }, unwrap: { mode: 'x-wing', keyId, privateKey } };
}

export const newKek = () => randomBytes(32).toString('hex');
