/**
 * Express 5 adapters. `verifyWebhook` reads the exact body bytes itself (or takes the Buffer that
 * express.raw left in req.body), verifies them and, for a JSON body, sets req.body to the parsed
 * value. `protectFields` decrypts fields of the body express.json parsed and encrypts fields of
 * what the handler passes to res.json. The request and response types are structural, so that the
 * package needs no Express typings at run time or in its declarations.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createFieldProtection, FieldDecryptionError, type FieldProtectionOptions } from './fields.ts';
import {
  bodyTooLargeProblem,
  fieldProblem,
  malformedJsonProblem,
  PROBLEM_CONTENT_TYPE,
  webhookProblem,
  type Problem,
} from './problem.ts';
import { BodyTooLargeError, readRawBody } from './raw-body.ts';
import { createWebhookVerifier, type WebhookVerifierOptions } from './webhook.ts';

export type ExpressRequest = IncomingMessage & { body?: unknown };
export type ExpressResponse = ServerResponse & { json?: (body: unknown) => unknown };
export type ExpressNext = (error?: unknown) => void;
export type ExpressMiddleware = (request: ExpressRequest, response: ExpressResponse, next: ExpressNext) => void;

export type ExpressWebhookOptions = WebhookVerifierOptions & {
  /** The largest body read, in bytes (default 1 MiB). */
  limit?: number;
};

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

const rawBodies = new WeakMap<IncomingMessage, Buffer>();

/** The exact bytes a verified webhook request was signed over. */
export function rawBody(request: IncomingMessage): Buffer | undefined {
  return rawBodies.get(request);
}

function sendProblem(response: ServerResponse, problem: Problem): void {
  response.statusCode = problem.status;
  response.setHeader('content-type', PROBLEM_CONTENT_TYPE);
  response.end(JSON.stringify(problem));
}

function isJson(request: IncomingMessage): boolean {
  return /^application\/(?:[\w.+-]+\+)?json\b/i.test(request.headers['content-type'] ?? '');
}

const NOT_JSON = Symbol('not JSON');

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return NOT_JSON;
  }
}

async function bytesOf(request: ExpressRequest, limit: number): Promise<Buffer> {
  if (Buffer.isBuffer(request.body)) return request.body;
  // A body parser that already consumed the stream leaves no exact bytes to verify.
  if (request.readableEnded) {
    throw new Error('verifyWebhook needs the raw body: mount it before express.json(), or use express.raw()');
  }
  return readRawBody(request, limit);
}

export function verifyWebhook(options: ExpressWebhookOptions): ExpressMiddleware {
  const verifier = createWebhookVerifier(options);
  const limit = options.limit ?? DEFAULT_BODY_LIMIT;
  return (request, response, next) => {
    void (async () => {
      let bytes: Buffer;
      try {
        bytes = await bytesOf(request, limit);
      } catch (error) {
        if (error instanceof BodyTooLargeError) return sendProblem(response, bodyTooLargeProblem(limit));
        return next(error);
      }
      const header = request.headers[verifier.header];
      const result = await verifier.verify(bytes, Array.isArray(header) ? header.join(',') : header);
      if (!result.ok) return sendProblem(response, webhookProblem(result.reason));
      rawBodies.set(request, bytes);
      if (!isJson(request)) request.body = bytes;
      else if ((request.body = parseJson(bytes)) === NOT_JSON) return sendProblem(response, malformedJsonProblem());
      next();
    })().catch(next);
  };
}

export function protectFields(options: FieldProtectionOptions): ExpressMiddleware {
  const protection = createFieldProtection(options);
  return (request, response, next) => {
    const json = response.json;
    if (typeof json === 'function' && (options.response?.length ?? 0) > 0) {
      response.json = (body: unknown) => {
        protection.encryptResponse(body).then((encrypted) => json.call(response, encrypted), next);
        return response;
      };
    }
    protection.decryptRequest(request.body).then(
      () => next(),
      (error: unknown) =>
        error instanceof FieldDecryptionError ? sendProblem(response, fieldProblem(error.field)) : next(error),
    );
  };
}
