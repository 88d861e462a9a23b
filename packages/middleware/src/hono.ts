/**
 * Hono 4 middleware. `webhookVerification` reads the body with c.req.arrayBuffer(), which Hono
 * caches, so the handler can still call c.req.json() or c.req.text(). `fieldProtection` hands the
 * decrypted body to the handler as c.req.valid('json'), as Hono's validators do, and encrypts the
 * named fields of a JSON response after the handler.
 */
import type { Context, Env, MiddlewareHandler } from 'hono';
import { createFieldProtection, FieldDecryptionError, type FieldProtectionOptions } from './fields.ts';
import { fieldProblem, malformedJsonProblem, PROBLEM_CONTENT_TYPE, webhookProblem, type Problem } from './problem.ts';
import { createWebhookVerifier, type WebhookVerifierOptions } from './webhook.ts';

function problemResponse(c: Context, problem: Problem): Response {
  return c.body(JSON.stringify(problem), problem.status as 400, { 'content-type': PROBLEM_CONTENT_TYPE });
}

export function webhookVerification(options: WebhookVerifierOptions): MiddlewareHandler {
  const verifier = createWebhookVerifier(options);
  return async (c, next) => {
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    const result = await verifier.verify(bytes, c.req.header(verifier.header));
    if (!result.ok) return problemResponse(c, webhookProblem(result.reason));
    await next();
  };
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;

/** What the handler reads with c.req.valid('json'): the JSON body with its protected fields decrypted. */
export interface DecryptedJsonInput {
  out: { json: Record<string, unknown> };
}

export function fieldProtection(options: FieldProtectionOptions): MiddlewareHandler<Env, string, DecryptedJsonInput> {
  const protection = createFieldProtection(options);
  return async (c, next) => {
    if (JSON_TYPE.test(c.req.header('content-type') ?? '')) {
      let body: unknown;
      try {
        body = await c.req.json();
      } catch {
        return problemResponse(c, malformedJsonProblem());
      }
      try {
        await protection.decryptRequest(body);
      } catch (error) {
        if (error instanceof FieldDecryptionError) return problemResponse(c, fieldProblem(error.field));
        throw error;
      }
      c.req.addValidatedData('json', body as object);
    }
    await next();
    if (!JSON_TYPE.test(c.res.headers.get('content-type') ?? '')) return;
    const encrypted = await protection.encryptResponse(await c.res.json());
    const headers = new Headers(c.res.headers);
    headers.delete('content-length');
    // Unset first: assigning over a response would carry its headers, a stale length among them.
    c.res = undefined;
    c.res = new Response(JSON.stringify(encrypted), { status: c.res.status, statusText: c.res.statusText, headers });
  };
}
