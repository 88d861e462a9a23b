/**
 * Fuzz cases for the routes that take a multipart form and stream their answer (the stream
 * routes): a valid form (a random key and payload; for decryption the payload sealed by
 * libsodium), then the same form broken the ways a form breaks: wrong or oversized params, parts
 * missing, swapped or added, cuts, flipped bytes, garbage, other content types, a payload over
 * STREAM_MAX_BYTES. And their oracle: never a 5xx, problems as on every route, and a 200 that never
 * lies: encryption's output, whole, opens to exactly the payload sent (a cut output may stop short,
 * never end early as if complete); decryption's output is always a prefix of the sealed plaintext.
 */
import fc from 'fast-check';
import sodium from 'libsodium-wrappers';
import { STREAM_CHUNK_BYTES, STREAM_PARAMS_MAX_BYTES } from '@crypto-service/protocol';
import { rawCase, type FuzzCase } from './cases.ts';
import type { Answer } from './oracle.ts';

await sodium.ready;

/** STREAM_MAX_BYTES of the fuzzed app (FUZZ_APP_ENV): small, so that the cases over it stay small. */
export const FUZZ_STREAM_MAX_BYTES = 3 * STREAM_CHUNK_BYTES;

const BOUNDARY = 'fuzz-boundary-5c1d';
const FORM_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** What a stream case was made from, for the oracle. */
export interface StreamCase extends FuzzCase {
  stream: { direction: 'encrypt' | 'decrypt'; key: Uint8Array; plaintext: Uint8Array };
}

interface Part {
  name: string;
  body: Uint8Array | string;
  /** Headers after content-disposition; default: a file for `data`, JSON for the others. */
  headers?: string;
  filename?: boolean;
}

function form(parts: readonly Part[], boundary = BOUNDARY): Buffer {
  const pieces: Buffer[] = [];
  for (const part of parts) {
    const file = part.filename ?? part.name === 'data';
    const headers =
      part.headers ?? (file ? 'content-type: application/octet-stream' : 'content-type: application/json');
    const disposition = `form-data; name="${part.name}"${file ? '; filename="payload"' : ''}`;
    pieces.push(Buffer.from(`--${boundary}\r\ncontent-disposition: ${disposition}\r\n${headers}\r\n\r\n`));
    pieces.push(Buffer.from(part.body));
    pieces.push(Buffer.from('\r\n'));
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(pieces);
}

/** libsodium's secretstream of `plaintext`, in the service's chunk size. */
export function sodiumSeal(key: Uint8Array, plaintext: Uint8Array): Uint8Array {
  const { state, header } = sodium.crypto_secretstream_xchacha20poly1305_init_push(key);
  const out = [header];
  let offset = 0;
  do {
    const last = offset + STREAM_CHUNK_BYTES >= plaintext.byteLength;
    const tag = last ? sodium.crypto_secretstream_xchacha20poly1305_TAG_FINAL : 0;
    out.push(
      sodium.crypto_secretstream_xchacha20poly1305_push(
        state,
        plaintext.subarray(offset, offset + STREAM_CHUNK_BYTES),
        null,
        tag,
      ),
    );
    offset += STREAM_CHUNK_BYTES;
  } while (offset < plaintext.byteLength);
  return Buffer.concat(out);
}

/** What libsodium opens of `sealed`: the verified plaintext, and whether a FINAL chunk ended it exactly. */
export function sodiumOpen(key: Uint8Array, sealed: Uint8Array): { plaintext: Buffer; complete: boolean } {
  const out: Uint8Array[] = [];
  if (sealed.byteLength < 24) return { plaintext: Buffer.alloc(0), complete: false };
  const state = sodium.crypto_secretstream_xchacha20poly1305_init_pull(sealed.subarray(0, 24), key);
  let offset = 24;
  while (offset < sealed.byteLength) {
    const chunk = sealed.subarray(offset, offset + STREAM_CHUNK_BYTES + 17);
    offset += chunk.byteLength;
    const opened = sodium.crypto_secretstream_xchacha20poly1305_pull(state, chunk, null);
    if (opened === false) break;
    out.push(opened.message);
    if (opened.tag === sodium.crypto_secretstream_xchacha20poly1305_TAG_FINAL)
      return { plaintext: Buffer.concat(out), complete: offset === sealed.byteLength };
  }
  return { plaintext: Buffer.concat(out), complete: false };
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** Payload lengths: small ones, and the ones around a chunk. */
const plaintextLength = fc.oneof(
  { weight: 4, arbitrary: fc.nat({ max: 300 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      STREAM_CHUNK_BYTES - 1,
      STREAM_CHUNK_BYTES,
      STREAM_CHUNK_BYTES + 1,
      2 * STREAM_CHUNK_BYTES,
    ),
  },
);

/** The cases of one multipart route (`/v2/stream/encrypt` or `/v2/stream/decrypt`). */
export function multipartCases(url: string): fc.Arbitrary<FuzzCase> {
  const direction = url.endsWith('/decrypt') ? ('decrypt' as const) : ('encrypt' as const);
  const seed = fc.record({
    key: fc.uint8Array({ minLength: 32, maxLength: 32 }),
    fill: fc.nat({ max: 255 }),
    length: plaintextLength,
  });
  return seed.chain(({ key, fill, length }) => {
    const plaintext = Uint8Array.from({ length }, (_, i) => (i * 31 + fill) & 0xff);
    const data = direction === 'encrypt' ? plaintext : sodiumSeal(key, plaintext);
    const params = JSON.stringify({ key: hex(key) });
    const make = (label: string, payload: Buffer | undefined, type: string | undefined, expect?: FuzzCase['expect']) =>
      Object.assign(rawCase(label, url, payload, type === undefined ? {} : { 'content-type': type }, expect), {
        body: { key: hex(key) },
        stream: { direction, key, plaintext },
      }) as StreamCase;
    const valid = form([
      { name: 'params', body: params },
      { name: 'data', body: data },
    ]);
    const refused = (parts: Part[], label: string, code = 'VALIDATION_FAILED') =>
      make(label, form(parts), FORM_TYPE, { status: 400, code });
    const dataPart: Part = { name: 'data', body: data };
    const cases: fc.Arbitrary<FuzzCase>[] = [
      fc.constant(Object.assign(make('valid', valid, FORM_TYPE, { status: 200 }), { valid: true })),
      fc
        .constantFrom(
          JSON.stringify({ key: hex(key).slice(2) }),
          JSON.stringify({ key: `${hex(key)}00` }),
          JSON.stringify({ key: `zz${hex(key).slice(2)}` }),
          JSON.stringify({ key: hex(key), chunk: 1 }),
          JSON.stringify({}),
          JSON.stringify([hex(key)]),
          'null',
          `{"key":"${hex(key)}"`,
          `{"key":"${hex(key)}"${' '.repeat(STREAM_PARAMS_MAX_BYTES)}}`,
        )
        .map((body) => refused([{ name: 'params', body }, dataPart], `params ${body.slice(0, 30)}`, 'INVALID_INPUT')),
      fc
        .constantFrom<[string, Part[]]>(
          ['swapped', [dataPart, { name: 'params', body: params }]],
          ['no data', [{ name: 'params', body: params }]],
          ['no params', [dataPart]],
          ['no parts', []],
          ['third part', [{ name: 'params', body: params }, dataPart, { name: 'more', body: 'x' }]],
          [
            'data as a field',
            [
              { name: 'params', body: params },
              { ...dataPart, filename: false, headers: '' },
            ],
          ],
          ['params as a file', [{ name: 'params', body: params, filename: true }, dataPart]],
          ['renamed', [{ name: 'Params', body: params }, dataPart]],
        )
        .map(([label, parts]) => refused(parts, label)),
      fc.nat({ max: valid.byteLength - 1 }).map((cut) => make(`cut at ${cut}`, valid.subarray(0, cut), FORM_TYPE)),
      fc
        .tuple(fc.nat({ max: valid.byteLength - 1 }), fc.integer({ min: 1, max: 255 }))
        .filter(
          ([at]) => direction === 'decrypt' || at < valid.indexOf(params) || at > valid.indexOf(params) + params.length,
        )
        .filter(([at]) => direction === 'decrypt' || at < valid.byteLength - data.byteLength - 2 - BOUNDARY.length - 8)
        .map(([at, xor]) => {
          const flipped = Buffer.from(valid);
          flipped[at] = flipped[at]! ^ xor;
          return make(`byte ${at} flipped`, flipped, FORM_TYPE);
        }),
      fc
        .uint8Array({ maxLength: 2000 })
        .map((bytes) => make('garbage', Buffer.from(bytes), FORM_TYPE, { status: 400, code: 'VALIDATION_FAILED' })),
      fc
        .constantFrom('multipart/form-data', 'multipart/form-data; boundary=other', 'multipart/form-data; boundary=')
        .map((type) => make(`content-type ${type}`, valid, type, { status: 400, code: 'VALIDATION_FAILED' })),
      fc
        .constantFrom('application/json', 'text/plain', 'application/octet-stream', undefined)
        .map((type) => make(`content-type ${type}`, valid, type, { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' })),
      fc.constantFrom(1, STREAM_PARAMS_MAX_BYTES, 8 * STREAM_PARAMS_MAX_BYTES).map((over) => {
        // Over STREAM_MAX_BYTES: refused (413) before any byte, or, when found as the bytes arrive
        // after the first output, cut.
        const big = new Uint8Array(FUZZ_STREAM_MAX_BYTES + over);
        return make(
          `data ${over} B over the limit`,
          form([
            { name: 'params', body: params },
            { name: 'data', body: big },
          ]),
          FORM_TYPE,
        );
      }),
    ];
    return fc.oneof(...cases);
  });
}

/** The faults of a 200 to a stream case: see the module comment. */
export function streamSuccessFaults(fuzzCase: StreamCase, answer: Answer & { raw?: Buffer }): string[] {
  const faults: string[] = [];
  const type = String(answer.headers['content-type'] ?? '');
  if (!type.startsWith('application/octet-stream')) faults.push(`content-type is ${JSON.stringify(type)}`);
  if (answer.headers['content-encoding'] !== undefined) faults.push('a stream answer was compressed');
  const raw = answer.raw;
  if (raw === undefined) return [...faults, 'the target gave no raw body'];
  const { direction, key, plaintext } = fuzzCase.stream;
  const expected = Buffer.from(plaintext);
  if (direction === 'encrypt') {
    const opened = sodiumOpen(key, raw);
    if (opened.complete && !opened.plaintext.equals(expected))
      faults.push('a complete encrypted stream of something other than the payload sent');
    if (!expected.subarray(0, opened.plaintext.byteLength).equals(opened.plaintext))
      faults.push('the output opens to bytes that were not sent');
    if (fuzzCase.valid === true && !opened.complete) faults.push('a valid form got an incomplete stream');
  } else {
    if (!expected.subarray(0, raw.byteLength).equals(raw) || raw.byteLength > expected.byteLength)
      faults.push('the decrypted output is not a prefix of the sealed plaintext');
    if (fuzzCase.valid === true && !raw.equals(expected)) faults.push('a valid form was not decrypted whole');
  }
  return faults;
}

export const isStreamCase = (fuzzCase: FuzzCase): fuzzCase is StreamCase => 'stream' in fuzzCase;
