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
import { CryptoError } from '@crypto-service/core';
import { ApiError } from './errors.ts';

/**
 * Not a bug, so not a 500: the work may simply be queued behind others (Argon2id, scrypt), and the
 * caller may try again later.
 */
function handlerTimeoutError(): ApiError {
  return new ApiError(
    'SERVICE_UNAVAILABLE',
    'the request took longer than the server allows (HANDLER_TIMEOUT_MS); try again later',
  );
}

/** Expected when a handler fails after its timeout: a dropped queued job, a refused input. */
const isExpectedFailure = (error: unknown) => error instanceof ApiError || error instanceof CryptoError;

/**
 * `handler`, answered with a 503 problem when it has not settled within `timeoutMs`. A handler
 * that returns synchronously is returned as it is (it cannot outlast a timer), so Fastify treats
 * its result exactly as before; the routes this wraps are all async.
 */
export function withHandlerTimeout(handler: RouteHandlerMethod, timeoutMs: number): RouteHandlerMethod {
  return function timedHandler(this: unknown, request, reply) {
    const result = (handler as (...args: unknown[]) => unknown).call(this, request, reply);
    if (!isThenable(result)) return result;
    return new Promise<unknown>((resolve, reject) => {
      let timedOut = false;
      const timer = setTimeout(() => {
        // A handler that answered with reply.send() and is still finishing up has answered in time.
        if (reply.sent || reply.raw.headersSent) return;
        timedOut = true;
        reject(handlerTimeoutError());
      }, timeoutMs);
      result.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          // After the 503 nobody reads this failure: a real bug must still show in the logs.
          if (timedOut && !isExpectedFailure(error))
            request.log.error({ err: error }, 'handler failed after its timeout had answered 503');
          reject(error);
        },
      );
    });
  } as RouteHandlerMethod;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function';
}

/**
 * Whether anyone still waits for this reply: not answered yet (a timeout answers) and the client
 * still there. The socket is asked too: a pipelined request behind another one has no close
 * listener on its own response yet, so its response would not say that the client left.
 */
export function stillWanted(reply: FastifyReply): () => boolean {
  return () => !reply.sent && !reply.raw.destroyed && reply.request.raw.socket?.destroyed !== true;
}
