/**
 * The JSON body parser. Fastify's own decodes bytes as UTF-8 leniently (bad bytes become U+FFFD,
 * so a request could hash or encrypt something other than what was sent); this one refuses
 * invalid UTF-8, keeps Fastify's prototype-poisoning protection (secure-json-parse semantics via
 * a reviver), and refuses compressed bodies, which could hide a size bomb behind the body limit.
 */
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function rejectPoisoning(key: string, value: unknown): unknown {
  if (FORBIDDEN_KEYS.has(key)) {
    throw new ApiError('MALFORMED_JSON', `the request body contains the forbidden key "${key}"`);
  }
  return value;
}

export default fp(async function jsonBody(app) {
  // JSON only: Fastify's default text/plain parser goes too, so anything else is a 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, async (request: FastifyRequest, body: Buffer) => {
    const contentEncoding = request.headers['content-encoding'];
    if (contentEncoding !== undefined && contentEncoding.toLowerCase() !== 'identity') {
      throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'compressed request bodies are not accepted; send plain JSON');
    }
    if (body.byteLength === 0) {
      throw new ApiError('MALFORMED_JSON', 'the request body is empty; send a JSON object');
    }
    let text: string;
    try {
      text = strictUtf8.decode(body);
    } catch {
      throw new ApiError('MALFORMED_JSON', 'the request body is not valid UTF-8');
    }
    // The reviver costs a call per key, so it runs only when a forbidden key could be present
    // (spelled out, or hidden behind a \u escape).
    const suspicious = text.includes('proto') || text.includes('constructor') || text.includes('\\u');
    try {
      return (suspicious ? JSON.parse(text, rejectPoisoning) : JSON.parse(text)) as unknown;
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw new ApiError('MALFORMED_JSON', 'the request body is not valid JSON');
    }
  });
  // A POST without any body (and so without a Content-Type) is an empty object to the schemas:
  // routes whose fields are all optional (`POST /v2/pq/hybrid/keygen`) can then be called bare.
  app.addHook('preValidation', async (request) => {
    if (request.method === 'POST' && request.body === undefined) {
      request.body = {};
    }
  });
}, { name: 'json-body' });
