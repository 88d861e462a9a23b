/**
 * Web streams: each function returns a `{ writable, readable }` transform pair for
 * `readable.pipeThrough(...)`, with the same backpressure and failure rules as the Node streams:
 * the readable errors (and the writable with it) on any failure, and closes only after a verified end.
 */
import {
  decrypt,
  encrypt,
  rewrapStream,
  type DecryptOptions,
  type EncryptOptions,
  type RewrapOptions,
} from './envelope.ts';

export interface EnvelopeTransform {
  writable: WritableStream<Uint8Array>;
  readable: ReadableStream<Uint8Array>;
}

async function* chunksOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        return;
      }
      yield value;
    }
  } finally {
    // Stopping early cancels the input, which errors its writable side for the writer to see.
    if (!finished) await reader.cancel(new Error('the envelope stream stopped reading its input'));
    reader.releaseLock();
  }
}

function transformPair(
  transform: (source: AsyncIterable<Uint8Array>) => AsyncGenerator<Uint8Array>,
): EnvelopeTransform {
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const output = transform(chunksOf(input.readable));
  const readable = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await output.next();
          if (next.done === true) controller.close();
          else controller.enqueue(next.value);
        } catch (error) {
          controller.error(error);
          await input.writable.abort(error).catch(() => undefined);
        }
      },
      async cancel() {
        await output.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
  return { writable: input.writable, readable };
}

/** Plaintext in, envelope out. */
export function encryptTransform(options: EncryptOptions): EnvelopeTransform {
  return transformPair((source) => encrypt(source, options));
}

/** Envelope in, plaintext out; whole and authentic only if the readable closes without error. */
export function decryptTransform(options: DecryptOptions): EnvelopeTransform {
  return transformPair((source) => decrypt(source, options));
}

/** Envelope in, the same envelope under a new key out: the content passes through unread. */
export function rewrapTransform(options: RewrapOptions): EnvelopeTransform {
  return transformPair((source) => rewrapStream(source, options));
}
