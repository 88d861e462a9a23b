import { Readable } from 'node:stream';
import fp from 'fastify-plugin';
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
import {
  STREAM_CHUNK_BYTES,
  STREAM_PARAMS_MAX_BYTES,
  StreamParams,
  StreamRequest,
  StreamResponse,
} from '@crypto-service/protocol';
import { coalesce } from '../coalesce.ts';
import { ApiError } from '../errors.ts';
import { MultipartForm, malformedForm, type FormPart } from '../multipart-form.ts';
import { chargeUpTo } from '../rate-limit/costs.ts';
import { problemResponses } from './responses.ts';
import '../route-config.ts';

/** Bytes of output gathered into one response write (four chunks): fewer writes, fewer system calls. */
const WRITE_BYTES = 4 * STREAM_CHUNK_BYTES;

/** Rate-limit units per started MiB of request: a stream costs what the same bytes in 1 MiB requests would. */
export const STREAM_BYTES_PER_UNIT = 1_048_576;

const AEAD = AEAD_ALGORITHM_IDS[0];

type Direction = 'encrypt' | 'decrypt';
type FilePart = Extract<FormPart, { type: 'file' }>;

const malformed = malformedForm;

/** The payload streams of multipart requests, set aside by the pass-through parser for the handler. */
const formBodies = new WeakMap<FastifyRequest, Readable>();

/** Reads the `params` part and returns the key; every fault is a 400 that names the field. */
async function readKey(form: MultipartForm): Promise<Uint8Array> {
  const part = await form.next();
  if (part === undefined || part.name !== 'params' || part.type !== 'field')
    throw malformed('the first part must be the field `params`, then the part `data`');
  if (part.truncated)
    throw invalidInput(`params must be a JSON object of at most ${STREAM_PARAMS_MAX_BYTES} bytes`, '/params');
  let params: unknown;
  try {
    params = JSON.parse(part.value);
  } catch {
    throw invalidInput('params must be a JSON object', '/params');
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
async function dataPart(form: MultipartForm): Promise<FilePart> {
  const part = await form.next();
  if (part === undefined || part.name !== 'data' || part.type !== 'file')
    throw malformed('the second part must be `data`, sent as a file or as application/octet-stream');
  return part;
}

/**
 * The `data` part's bytes as they arrive, then the check that the form ended right after it. Also
 * charges the rate limit for bytes past what the request was charged for on arrival: a refusal
 * then ends the stream with an error, like any other failure after the first byte.
 */
async function* payload(
  part: FilePart,
  form: MultipartForm,
  reply: FastifyReply,
  prepaidBytes: number,
  maxBytes: number,
): AsyncGenerator<Uint8Array> {
  let received = 0;
  let paidUpTo = Math.max(prepaidBytes, STREAM_BYTES_PER_UNIT);
  try {
    for await (const chunk of part.stream as AsyncIterable<Buffer>) {
      received += chunk.byteLength;
      if (received > paidUpTo) {
        const units = Math.ceil((received - paidUpTo) / STREAM_BYTES_PER_UNIT);
        await reply.chargeRateLimit(units);
        paidUpTo += units * STREAM_BYTES_PER_UNIT;
      }
      yield chunk;
    }
  } catch (error) {
    // busboy's own faults (a body that ends inside the part) carry no status: they are the client's.
    throw error instanceof ApiError ? error : malformed(`the data part is malformed: ${(error as Error).message}`);
  }
  // A part cut at the limit fails its stream; this check is the second line.
  if (part.stream.truncated || received > maxBytes) throw tooLarge(maxBytes);
  if ((await form.next()) !== undefined) throw malformed('`data` must be the last part');
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError('PAYLOAD_TOO_LARGE', `the data part is larger than STREAM_MAX_BYTES (${maxBytes} bytes)`);
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
    // The body is handed to the handler unread, to be parsed as it streams; in this scope only, and
    // the only type this scope reads (any other is a 415, not a JSON parser's 400).
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('multipart/form-data', (request, payload, done) => {
      formBodies.set(request, payload);
      done(null);
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
      const body = formBodies.get(request);
      if (body === undefined)
        throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'the request body must be multipart/form-data');
      let form: MultipartForm | undefined;
      try {
        const contentLength = Number(request.headers['content-length'] ?? 0);
        if (contentLength > options.maxBytes + STREAM_PARAMS_MAX_BYTES * 4) throw tooLarge(options.maxBytes);
        // A declared length is charged in full before any work; a chunked body as its bytes arrive.
        if (contentLength > 0) await chargeUpTo(reply, Math.ceil(contentLength / STREAM_BYTES_PER_UNIT));
        form = new MultipartForm(
          body,
          request.headers,
          // `params` (a field, small) and `data` (a file, streamed); a third part is refused.
          { parts: 2, fieldSize: STREAM_PARAMS_MAX_BYTES, fileSize: options.maxBytes },
          () => tooLarge(options.maxBytes),
        );
        return await start(direction, request, reply, form, contentLength);
      } catch (error) {
        if (reply.sent) throw error;
        // The rest of the upload is read and dropped, so that the client, still sending, gets the
        // problem: a socket closed on unread bytes is reset, and the answer lost with it.
        form?.close();
        body.resume();
        throw error;
      }
    };

    /** Reads the parameters, starts the stream and answers with it once its first output is ready. */
    const start = async (
      direction: Direction,
      request: FastifyRequest,
      reply: FastifyReply,
      form: MultipartForm,
      contentLength: number,
    ): Promise<FastifyReply> => {
      const key = await readKey(form);
      let outcome: PromiseWithResolvers<void> | undefined;
      try {
        const input = payload(await dataPart(form), form, reply, contentLength, options.maxBytes);
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
        const body = Readable.from(continueWith(first, coalesce(output, WRITE_BYTES), key, outcome), {
          highWaterMark: 1,
        });
        return await reply.send(body);
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
