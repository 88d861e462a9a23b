import { Readable } from 'node:stream';
import fp from 'fastify-plugin';
import multipart, { type Multipart, type MultipartFile } from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  AEAD_ALGORITHM_IDS,
  decryptStream,
  encryptStream,
  hexToBytes,
  invalidInput,
  SECRETSTREAM_KEY_LENGTH,
  checkLength,
  wipe,
} from '@crypto-service/core';
import { StreamParams, StreamRequest, StreamResponse } from '@crypto-service/protocol';
import { ApiError } from '../errors.ts';
import { chargeUpTo } from '../rate-limit/costs.ts';
import { problemResponses } from './responses.ts';
import '../route-config.ts';

/** Rate-limit units per started MiB of request: a stream costs what the same bytes in 1 MiB requests would. */
export const STREAM_BYTES_PER_UNIT = 1_048_576;

/** The largest `params` part: a key and room for whitespace. */
const MAX_PARAMS_BYTES = 4096;

const AEAD = AEAD_ALGORITHM_IDS[0];

type Direction = 'encrypt' | 'decrypt';
type MultipartParts = AsyncIterableIterator<Multipart>;

function malformed(detail: string): ApiError {
  return new ApiError('VALIDATION_FAILED', detail);
}

/** Reads the `params` part and returns the key; every fault is a 400 that names the field. */
async function readKey(parts: MultipartParts): Promise<Uint8Array> {
  const first = await parts.next();
  const part = first.done === true ? undefined : first.value;
  if (part === undefined || part.fieldname !== 'params' || part.type !== 'field')
    throw malformed('the first part must be the field `params`, then the part `data`');
  if (part.valueTruncated) throw invalidInput('params must be a JSON object', '/params');
  // The plugin has already parsed a part sent as application/json; any other is parsed here.
  let params: unknown = part.value;
  if (typeof params === 'string') {
    try {
      params = JSON.parse(params);
    } catch {
      throw invalidInput('params must be a JSON object', '/params');
    }
  }
  if (typeof params !== 'object' || params === null || Array.isArray(params))
    throw invalidInput('params must be a JSON object', '/params');
  const unknown = Object.keys(params).find((name) => !(name in StreamParams.properties));
  if (unknown !== undefined) throw invalidInput(`params has no field ${JSON.stringify(unknown)}`, `/params/${unknown}`);
  const { key } = params as { key?: unknown };
  if (typeof key !== 'string') throw invalidInput('params.key must be a hex string', '/params/key');
  const bytes = hexToBytes(key, '/params/key');
  try {
    return checkLength(bytes, SECRETSTREAM_KEY_LENGTH, 'params/key');
  } catch (error) {
    wipe(bytes);
    throw error;
  }
}

/** The `data` part, which must follow `params`: its bytes are read by `payload`. */
async function dataPart(parts: MultipartParts): Promise<MultipartFile> {
  const next = await parts.next();
  const part = next.done === true ? undefined : next.value;
  if (part === undefined || part.fieldname !== 'data' || part.type !== 'file')
    throw malformed('the second part must be `data`, sent as a file or as application/octet-stream');
  return part;
}

/**
 * The `data` part's bytes as they arrive, then the check that the form ended right after it. Also
 * charges the rate limit for bytes past what the request was charged for on arrival: a refusal
 * then ends the stream with an error, like any other failure after the first byte.
 */
async function* payload(
  part: MultipartFile,
  parts: MultipartParts,
  reply: FastifyReply,
  prepaidBytes: number,
  maxBytes: number,
): AsyncGenerator<Uint8Array> {
  let received = 0;
  let paidUpTo = Math.max(prepaidBytes, STREAM_BYTES_PER_UNIT);
  for await (const chunk of part.file as AsyncIterable<Buffer>) {
    received += chunk.byteLength;
    if (received > paidUpTo) {
      const units = Math.ceil((received - paidUpTo) / STREAM_BYTES_PER_UNIT);
      await reply.chargeRateLimit(units);
      paidUpTo += units * STREAM_BYTES_PER_UNIT;
    }
    yield chunk;
  }
  // busboy ends a part cut at the limit as if it were whole: it must never be taken for the end.
  if (part.file.truncated || received > maxBytes)
    throw new ApiError('PAYLOAD_TOO_LARGE', `the data part is larger than STREAM_MAX_BYTES (${maxBytes} bytes)`);
  const after = await parts.next();
  if (after.done !== true) throw malformed('`data` must be the last part');
}

/**
 * `/v2/stream/encrypt` and `/v2/stream/decrypt`: payloads of any length through libsodium's
 * crypto_secretstream_xchacha20poly1305 (core secretstream-stream.ts), multipart in, octets out,
 * in constant memory. Failures before the first output byte are problems like any route's; after
 * it, the response is aborted (never ended normally), so that no client takes a cut or damaged
 * stream for a complete one.
 */
export const streamRoutes = fp(
  async function streamRoutes(app, options: { maxBytes: number }) {
    await app.register(multipart, {
      // Two parts: `params` (a field, small) and `data` (a file, streamed); nothing else is read.
      limits: { parts: 2, fields: 1, files: 1, fieldSize: MAX_PARAMS_BYTES, fileSize: options.maxBytes },
    });

    const route = (direction: Direction) => ({
      config: {
        scope: direction === 'encrypt' ? ('crypto:encrypt' as const) : ('crypto:decrypt' as const),
        operation: `stream.${direction}`,
      },
      schema: {
        tags: ['stream'],
        summary:
          direction === 'encrypt'
            ? 'Encrypt a stream of any length (libsodium secretstream, 64 KiB chunks)'
            : 'Decrypt the output of /v2/stream/encrypt (or of libsodium secretstream in 64 KiB chunks)',
        consumes: ['multipart/form-data'],
        body: StreamRequest,
        response: {
          200: {
            description: 'The output, streamed',
            content: { 'application/octet-stream': { schema: StreamResponse } },
          },
          ...problemResponses,
        },
      },
      // The multipart body is read by the handler as it streams; StreamRequest only documents it.
      validatorCompiler: () => () => true,
      // Ciphertext does not compress, and compressing secret plaintext would leak its content by its size.
      compress: false as const,
    });

    const handle = (direction: Direction) => async (request: FastifyRequest, reply: FastifyReply) => {
      if (!request.isMultipart())
        throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'the request body must be multipart/form-data');
      const contentLength = Number(request.headers['content-length'] ?? 0);
      if (contentLength > options.maxBytes + MAX_PARAMS_BYTES * 4)
        throw new ApiError(
          'PAYLOAD_TOO_LARGE',
          `the data part is larger than STREAM_MAX_BYTES (${options.maxBytes} bytes)`,
        );
      // A declared length is charged in full before any work; a chunked body as its bytes arrive.
      if (contentLength > 0) await chargeUpTo(reply, Math.ceil(contentLength / STREAM_BYTES_PER_UNIT));
      const parts = request.parts() as MultipartParts;
      try {
        return await start(direction, request, reply, parts, contentLength);
      } catch (error) {
        if (reply.sent) throw error;
        // The rest of the upload is read and dropped, so that the client, still sending, gets the
        // problem: a socket closed on unread bytes is reset, and the answer lost with it.
        request.raw.unpipe();
        request.raw.resume();
        throw error;
      }
    };

    /** Reads the parameters, starts the stream and answers with it once its first output is ready. */
    const start = async (
      direction: Direction,
      request: FastifyRequest,
      reply: FastifyReply,
      parts: MultipartParts,
      contentLength: number,
    ): Promise<FastifyReply> => {
      const key = await readKey(parts);
      let outcome: PromiseWithResolvers<void> | undefined;
      try {
        const input = payload(await dataPart(parts), parts, reply, contentLength, options.maxBytes);
        const output = direction === 'encrypt' ? encryptStream(key, input) : decryptStream(key, input);
        // Counted in crypto_operations_total when the stream ends, by how it ends (a client that
        // went away midway is not counted).
        outcome = Promise.withResolvers<void>();
        app.operations.run(request, AEAD, () => outcome!.promise).catch(() => {});
        // The first output is awaited here, so that a bad key, a foreign header or a stream shorter
        // than one chunk is still answered as a problem; afterwards only an abort can say it.
        const first = await output.next();
        reply.type('application/octet-stream');
        reply.header('cache-control', 'no-store');
        return await reply.send(Readable.from(continueWith(first, output, key, outcome)));
      } catch (error) {
        wipe(key);
        outcome?.reject(error);
        throw error;
      }
    };

    app.post('/v2/stream/encrypt', route('encrypt'), handle('encrypt'));
    app.post('/v2/stream/decrypt', route('decrypt'), handle('decrypt'));
  },
  { name: 'stream-routes', dependencies: ['metrics', 'rate-limit'], encapsulate: true },
);

/** The rest of `output` after its first result; the key is wiped however the stream ends. */
async function* continueWith(
  first: IteratorResult<Uint8Array>,
  output: AsyncGenerator<Uint8Array>,
  key: Uint8Array,
  outcome: PromiseWithResolvers<void>,
): AsyncGenerator<Uint8Array> {
  try {
    if (first.done !== true) {
      yield first.value;
      yield* output;
    }
    outcome.resolve();
  } catch (error) {
    outcome.reject(error);
    throw error;
  } finally {
    wipe(key);
  }
}
