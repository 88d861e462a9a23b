/**
 * HANDLER_TIMEOUT_MS: a route of variable cost that has not answered in time is answered with a
 * 503 problem, and the work it was still waiting for is dropped.
 *
 * Why not Fastify's own `handlerTimeout`: in Fastify 5.12 its timer is cleared, and `request.signal`
 * aborted, by the raw request's 'close' event, which Node emits as soon as a request BODY has been
 * read, not only when the client goes away. Every POST route (all of ours) therefore ran without
 * any timeout on a real socket; only `inject()`, which emits no early 'close', saw it work
 * (fastify/fastify pull requests #6725 and #7033, still open). So the route's handler is wrapped
 * instead: it races the original handler against a timer, and when the timer wins, Fastify sends
 * the 503 through the ordinary error handler and the handler's late result is ignored (no second
 * send, no "reply already sent" noise in the logs).
 *
 * The handler keeps running when it times out (JavaScript cannot stop it); what can be stopped is
 * the work still waiting in a queue: `stillWanted` tells a WorkQueue (work-queue.ts) whether the
 * request is still waiting for an answer, so that neither a timed-out request nor one whose client
 * has gone starts an Argon2id or scrypt job that nobody will read.
 */
import type { FastifyReply, RouteHandlerMethod } from 'fastify';
import { ApiError } from './errors.ts';

/**
 * Not a bug, so not a 500: the work may simply be queued behind others (Argon2id, scrypt), and the
 * caller may try again later.
 */
function handlerTimeoutError(): ApiError {
  return new ApiError('SERVICE_UNAVAILABLE', 'the request took longer than the server allows (HANDLER_TIMEOUT_MS); try again later');
}

/** `handler`, answered with a 503 problem when it has not settled within `timeoutMs`. */
export function withHandlerTimeout(handler: RouteHandlerMethod, timeoutMs: number): RouteHandlerMethod {
  return function timedHandler(this: unknown, request, reply) {
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        // A handler that answered with reply.send() and is still finishing up has answered in time.
        if (!reply.sent) reject(handlerTimeoutError());
      }, timeoutMs);
      const settle = <T>(finish: (value: T) => void) => (value: T) => {
        clearTimeout(timer);
        finish(value);
      };
      try {
        Promise.resolve((handler as (...args: unknown[]) => unknown).call(this, request, reply)).then(settle(resolve), settle(reject));
      } catch (error) {
        settle(reject)(error);
      }
    });
  } as RouteHandlerMethod;
}

/** Whether anyone still waits for this reply: not answered yet (a timeout answers), client still there. */
export function stillWanted(reply: FastifyReply): () => boolean {
  return () => !reply.sent && !reply.raw.destroyed;
}
