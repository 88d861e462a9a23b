/**
 * Schemas of `/v2/stream/encrypt` and `/v2/stream/decrypt`. The request is multipart/form-data:
 * a `params` part (the JSON object StreamParams) and then a `data` part (the payload, any length,
 * sent as a file or as application/octet-stream); the answer is the output as
 * application/octet-stream, streamed. The format is libsodium's
 * crypto_secretstream_xchacha20poly1305 in chunks of STREAM_CHUNK_BYTES bytes of plaintext.
 */
import { Type, type Static } from 'typebox';
import { Hex, MAX_KEY_CHARS } from './common.ts';

/** Plaintext bytes per secretstream chunk; a chunk of ciphertext is 17 bytes more (tag and MAC). */
export const STREAM_CHUNK_BYTES = 65_536;
/** Bytes of the secretstream header that opens every encrypted stream. */
export const STREAM_HEADER_BYTES = 24;
/** Bytes each chunk adds to its plaintext: the encrypted tag (1) and the Poly1305 MAC (16). */
export const STREAM_CHUNK_OVERHEAD = 17;

/** Bytes of the `params` part at most: a key with room for whitespace. */
export const STREAM_PARAMS_MAX_BYTES = 4096;

/** The `params` part, a JSON object. */
export const StreamParams = Type.Object(
  { key: Hex('XChaCha20-Poly1305 key, 32 bytes (the key of /v2/encrypt)', MAX_KEY_CHARS) },
  { additionalProperties: false },
);
export type StreamParams = Static<typeof StreamParams>;

/** The multipart body as the OpenAPI document describes it (parts in this order). */
export const StreamRequest = Type.Object(
  {
    params: Type.String({
      description: 'JSON object `{ "key": "<64 hex>" }`; must be the first part',
      contentMediaType: 'application/json',
      maxLength: STREAM_PARAMS_MAX_BYTES,
    }),
    data: Type.String({
      description:
        'The payload, streamed; must be the second and last part, sent as a file or application/octet-stream',
      format: 'binary',
    }),
  },
  { additionalProperties: false },
);

/** The answer: the output bytes, streamed. Valid only if the response completes. */
export const StreamResponse = Type.String({
  format: 'binary',
  description:
    'The output, streamed. Only a response that ends normally is complete: a failure after the first byte aborts it.',
});
