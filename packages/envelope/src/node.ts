/**
 * Node streams: each function returns a Duplex to put in `pipeline()` between a source and a
 * destination. Backpressure flows through, so memory stays one chunk whatever the size; a failure
 * destroys the stream with the error, so `pipeline()` rejects and never reports a clean end.
 */
import { Duplex } from 'node:stream';
import {
  decrypt,
  encrypt,
  rewrapStream,
  type DecryptOptions,
  type EncryptOptions,
  type RewrapOptions,
} from './envelope.ts';

type Transform = (source: AsyncIterable<Uint8Array>) => AsyncIterable<Uint8Array>;

/** Written strings become UTF-8 bytes, as a byte stream would make them. */
async function* asBytes(source: AsyncIterable<unknown>): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) {
    if (chunk instanceof Uint8Array) yield chunk;
    else if (typeof chunk === 'string') yield Buffer.from(chunk, 'utf8');
    else throw new TypeError('an envelope stream takes Buffer, Uint8Array or string chunks');
  }
}

function duplex(transform: Transform): Duplex {
  return Duplex.from(async function* (source: AsyncIterable<unknown>) {
    for await (const piece of transform(asBytes(source)))
      yield Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
  });
}

/** Plaintext in, envelope out. */
export function createEncryptStream(options: EncryptOptions): Duplex {
  return duplex((source) => encrypt(source, options));
}

/** Envelope in, plaintext out; the plaintext is whole and authentic only if the stream ends without error. */
export function createDecryptStream(options: DecryptOptions): Duplex {
  return duplex((source) => decrypt(source, options));
}

/** Envelope in, the same envelope under a new key out: the content passes through unread. */
export function createRewrapStream(options: RewrapOptions): Duplex {
  return duplex((source) => rewrapStream(source, options));
}
