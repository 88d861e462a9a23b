/**
 * Reads a request body into one Buffer for the JSON parser (plugins/json-body.ts): what Fastify's
 * own reader does for a parser declared with `parseAs: 'buffer'`, with the same limits and the same
 * errors, but without copying a body that arrived in one piece.
 *
 * Fastify's reader always copies, even a single chunk (`Buffer.concat`), so that a parser never
 * holds a view over memory the stream might reuse. Node's HTTP parser copies every body chunk into
 * memory of its own (a fresh ArrayBuffer per chunk, checked on Node 22 and 24, pipelined, chunked
 * and split bodies alike), which nothing overwrites before the body's end, and the JSON parser keeps
 * nothing of the bytes once decoded, so here the copy buys nothing. A body of several chunks is
 * still joined into one Buffer.
 *
 * Kept from Fastify's reader (fastify/lib/content-type-parser.js, rawBody), in order:
 * - a Content-Length over the limit is refused before a byte is read (413);
 * - the bytes received are counted as they come, and the body refused as soon as they pass the
 *   limit (413), whatever the Content-Length said or whether there was one (chunked framing);
 * - a stream error (the client went away mid-body) is a 400 unless it carries a 4xx/5xx status;
 * - a body whose length disagrees with its Content-Length is refused (400).
 */
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import Fastify from 'fastify';

const { FST_ERR_CTP_BODY_TOO_LARGE, FST_ERR_CTP_INVALID_CONTENT_LENGTH } = Fastify.errorCodes;

const EMPTY = Buffer.alloc(0);

/** The request's payload stream; a preParsing stream may say how many encoded bytes it has read. */
export type PayloadStream = Readable & { receivedEncodedLength?: number };

/** Called once: with the error to answer, or with null and the body. */
export type BodyCallback = (error: Error | null, body?: Buffer) => void;

/** Reads `payload` to its end and calls `done` once: with the body, or with the error to answer. */
export function readBody(request: FastifyRequest, payload: PayloadStream, limit: number, done: BodyCallback): void {
  const contentLength = Number(request.headers['content-length']);
  if (contentLength > limit) {
    done(new FST_ERR_CTP_BODY_TOO_LARGE());
    return;
  }
  let received = 0;
  let first: Buffer | undefined;
  let chunks: Buffer[] | undefined;
  // Once `done` has been called, the listeners ignore whatever else the stream emits. They are not
  // removed, as Fastify's reader removes them: three removeListener calls cost more than the flag
  // (and turn the request's listener table into a dictionary), and they go with the request. They must not keep the body alive meanwhile (a
  // request can wait for a queued job long after its body was parsed), so the chunks are let go.
  // A refused body's remaining chunks are dropped.
  let settled = false;
  const finish: BodyCallback = (error, body) => {
    settled = true;
    first = undefined;
    chunks = undefined;
    done(error, body);
  };

  function onData(chunk: Buffer | string): void {
    if (settled) return;
    // A preParsing stream may emit strings; the request itself emits Buffers.
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    received += bytes.length;
    // A body that grows in decoding (a preParsing stream) must not pass the limit either.
    if (received > limit || (payload.receivedEncodedLength ?? 0) > limit) {
      finish(new FST_ERR_CTP_BODY_TOO_LARGE());
      return;
    }
    if (first === undefined) first = bytes;
    else (chunks ??= [first]).push(bytes);
  }

  function onEnd(error?: Error & { statusCode?: number }): void {
    if (settled) return;
    if (error != null) {
      if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400;
      finish(error);
      return;
    }
    if (!Number.isNaN(contentLength) && (payload.receivedEncodedLength || received) !== contentLength) {
      finish(new FST_ERR_CTP_INVALID_CONTENT_LENGTH());
      return;
    }
    finish(null, chunks === undefined ? (first ?? EMPTY) : Buffer.concat(chunks, received));
  }

  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onEnd);
  payload.resume();
}
