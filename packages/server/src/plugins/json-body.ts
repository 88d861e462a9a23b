/**
 * The JSON body parser. Fastify's own decodes bytes as UTF-8 leniently (bad bytes become U+FFFD,
 * so a request could hash or encrypt something other than what was sent); this one refuses
 * invalid UTF-8, keeps Fastify's prototype-poisoning protection (secure-json-parse semantics via
 * a reviver), refuses compressed bodies, which could hide a size bomb behind the body limit, and
 * refuses bodies nested deeper than MAX_JSON_DEPTH before JSON.parse builds anything.
 */
import { isUtf8 } from 'node:buffer';
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { tryOrThrow } from '@crypto-service/core';
import { ApiError } from '../errors.ts';
import { readBody, type PayloadStream } from '../body-reader.ts';
import { declareRouteConfigCache, routeConfigOf } from '../route-config.ts';

const BYTE_ORDER_MARK = 0xfeff;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Deepest nesting of objects and arrays a body may have (the top-level object counts as 1). The
 * deepest request of any route is 3 (`{ recipients: [ { … } ] }`); 32 leaves room for clients that
 * wrap, and stops a body of a million `[` long before anything recursive (a serializer, a log
 * line, structuredClone to a worker) could overflow the stack on what JSON.parse built.
 */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * The rest of a JSON string up to and including its closing quote, from a position that is not
 * inside an escape: runs of plain characters, each escape taken whole. The unrolled form (no two
 * alternatives can match the same character) keeps it linear even when no quote closes the string.
 */
const REST_OF_STRING = /[^"\\]*(?:\\[\s\S][^"\\]*)*"/y;

/**
 * Whether `text` nests objects and arrays deeper than `maxDepth`, counting brackets outside
 * strings. One pass, no allocation, linear whatever the input. A string is skipped with indexOf
 * (native, and a few calls whatever its size when it holds no escaped quote, the usual case: hex,
 * base64, plain text); from its first escaped quote on, the rest of that string goes to a sticky
 * regular expression, one native call however many escapes follow (a JSON document sent as a
 * payload: about half of JSON.parse's time; 2–5 ms per MiB at worst, for a string of nothing but
 * escapes). Not a validator: malformed JSON is JSON.parse's to refuse, so a stray `]` or an
 * unterminated string only has to leave the count harmless.
 */
export function nestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      let end = text.indexOf('"', i + 1);
      if (end === -1) return false;
      if (text.charCodeAt(end - 1) === BACKSLASH) {
        let backslashes = 1;
        while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
        if ((backslashes & 1) === 1) {
          // An escaped quote: the string goes on. Everything before it is plain characters and
          // whole escapes, so end + 1 is a clean place to resume.
          REST_OF_STRING.lastIndex = end + 1;
          if (REST_OF_STRING.exec(text) === null) return false;
          end = REST_OF_STRING.lastIndex - 1;
        }
      }
      i = end;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > maxDepth) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

function rejectPoisoning(key: string, value: unknown): unknown {
  if (FORBIDDEN_KEYS.has(key)) {
    throw new ApiError('MALFORMED_JSON', `the request body contains the forbidden key "${key}"`);
  }
  return value;
}

/** The body as a JSON value, or the 4xx ApiError to answer with. Synchronous: no promise per request. */
export function parseJsonBody(contentEncoding: string | undefined, body: Buffer): unknown {
  if (contentEncoding !== undefined && contentEncoding.toLowerCase() !== 'identity') {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'compressed request bodies are not accepted; send plain JSON');
  }
  if (body.byteLength === 0) {
    throw new ApiError('MALFORMED_JSON', 'the request body is empty; send a JSON object');
  }
  // Strict UTF-8 (no U+FFFD substitution), as a fatal TextDecoder would decode it, but with
  // Node's native validator and decoder, about twice as fast on small bodies. A leading byte order
  // mark is dropped, as the TextDecoder did.
  if (!isUtf8(body)) {
    throw new ApiError('MALFORMED_JSON', 'the request body is not valid UTF-8');
  }
  let text = body.toString('utf8');
  if (text.charCodeAt(0) === BYTE_ORDER_MARK) text = text.slice(1);
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new ApiError(
      'MALFORMED_JSON',
      `the request body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`,
    );
  }
  // The reviver costs a call per key, so it runs only when a forbidden key could be present
  // (spelled out, or hidden behind a \u escape).
  const suspicious = text.includes('proto') || text.includes('constructor') || text.includes('\\u');
  // tryOrThrow: the SyntaxError JSON.parse throws is replaced, so it captures no stack.
  return tryOrThrow(
    () => (suspicious ? JSON.parse(text, rejectPoisoning) : JSON.parse(text)) as unknown,
    (error) =>
      error instanceof ApiError ? error : new ApiError('MALFORMED_JSON', 'the request body is not valid JSON'),
  );
}

export default fp(
  async function jsonBody(app) {
    // JSON only: Fastify's default text/plain parser goes too, so anything else is a 415.
    app.removeAllContentTypeParsers();
    // The body limit is the server's (BODY_LIMIT_BYTES) unless a route declares its own. Fastify's
    // request.routeOptions builds a twelve-field object on every read, so each route's limit is read
    // once, on its first request, and kept by the route's config object (one per route, whatever the
    // order in which routes and plugins were declared).
    declareRouteConfigCache(app);
    const limits = new WeakMap<object, number>();
    const bodyLimitOf = (request: FastifyRequest): number => {
      const config = routeConfigOf(request);
      let limit = limits.get(config);
      if (limit === undefined) {
        limit = request.routeOptions.bodyLimit;
        limits.set(config, limit);
      }
      return limit;
    };
    // Callback style (three parameters), not async: Fastify then calls it without a promise. With no
    // parseAs, Fastify hands over the payload stream and body-reader.ts reads it (same limits and
    // errors as Fastify's reader, without its copy of a body that came in one chunk). Fastify then
    // ignores a parser's own `bodyLimit` option: limits belong to the server and the routes.
    app.addContentTypeParser(
      'application/json',
      (request: FastifyRequest, payload: PayloadStream, done: (error: Error | null, body?: unknown) => void) => {
        readBody(request, payload, bodyLimitOf(request), (readError, body) => {
          if (readError !== null) {
            done(readError);
            return;
          }
          let parsed: unknown;
          try {
            parsed = parseJsonBody(request.headers['content-encoding'], body as Buffer);
          } catch (error) {
            done(error as Error);
            return;
          }
          done(null, parsed);
        });
      },
    );
    // A POST without any body (and so without a Content-Type) is an empty object to the schemas:
    // routes whose fields are all optional (`POST /v2/pq/hybrid/keygen`) can then be called bare.
    app.addHook('preValidation', (request, _reply, next) => {
      if (request.method === 'POST' && request.body === undefined) {
        request.body = {};
      }
      next();
    });
  },
  { name: 'json-body' },
);
