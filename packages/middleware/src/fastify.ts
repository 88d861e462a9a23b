/**
 * Fastify 5 plugins. Both apply to the scope they are registered in (they skip Fastify's
 * encapsulation, as fastify-plugin does), so register them inside the scope of the routes they
 * guard. `webhookVerification` replaces the scope's body parsers with one that keeps the exact
 * bytes (a JSON body is still parsed for the handler) and verifies them in preValidation.
 * `fieldProtection` decrypts request fields in preValidation and encrypts response fields in
 * preSerialization.
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { createFieldProtection, FieldDecryptionError, type FieldProtectionOptions } from './fields.ts';
import { fieldProblem, malformedJsonProblem, PROBLEM_CONTENT_TYPE, webhookProblem, type Problem } from './problem.ts';
import { createWebhookVerifier, type WebhookVerifierOptions } from './webhook.ts';

const rawBodies = new WeakMap<FastifyRequest, Buffer>();

/** The exact bytes a webhook request was signed over. */
export function rawBody(request: FastifyRequest): Buffer | undefined {
  return rawBodies.get(request);
}

function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  return reply.code(problem.status).header('content-type', PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
}

/** Marks a plugin as applying to the scope that registers it rather than to a child scope. */
function inRegisteringScope(plugin: FastifyPluginAsync): FastifyPluginAsync {
  Object.assign(plugin, { [Symbol.for('skip-override')]: true });
  return plugin;
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;

function keepRawBody(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    rawBodies.set(request, bytes);
    if (!JSON_TYPE.test(request.headers['content-type'] ?? '')) return done(null, bytes);
    try {
      done(null, JSON.parse(bytes.toString('utf8')));
    } catch {
      // Parsed only after verification, so that an unsigned request learns nothing about the body.
      done(null, undefined);
      malformed.add(request);
    }
  });
}

const malformed = new WeakSet<FastifyRequest>();

export function webhookVerification(options: WebhookVerifierOptions): FastifyPluginAsync {
  const verifier = createWebhookVerifier(options);
  return inRegisteringScope(async (scope) => {
    keepRawBody(scope);
    scope.addHook('preValidation', async (request, reply) => {
      const header = request.headers[verifier.header];
      const bytes = rawBodies.get(request) ?? Buffer.alloc(0);
      const result = await verifier.verify(bytes, Array.isArray(header) ? header.join(',') : header);
      if (!result.ok) return sendProblem(reply, webhookProblem(result.reason));
      if (malformed.has(request)) return sendProblem(reply, malformedJsonProblem());
    });
  });
}

export function fieldProtection(options: FieldProtectionOptions): FastifyPluginAsync {
  const protection = createFieldProtection(options);
  return inRegisteringScope(async (scope) => {
    scope.addHook('preValidation', async (request, reply) => {
      try {
        await protection.decryptRequest(request.body);
      } catch (error) {
        if (error instanceof FieldDecryptionError) return sendProblem(reply, fieldProblem(error.field));
        throw error;
      }
    });
    scope.addHook('preSerialization', async (_request, _reply, payload) => protection.encryptResponse(payload));
  });
}
