/**
 * Between pipeline stages 2 and 3: while the server drains (SIGTERM), a request that still arrives
 * on an open keep-alive connection is refused with a 503 problem and `Connection: close`, so that
 * the client retries elsewhere. It comes after the security headers and CORS, so the refusal
 * carries them (a browser can read it), and before the rate limit, so it costs the client nothing.
 * The probes are not refused: /ready answers for itself (503, "shutdown: fail") and /live stays
 * 200, so that an orchestrator never kills a process that is draining on purpose.
 *
 * Fastify's own `return503OnClosing` is off (app.ts): it answered before any hook, with a bare
 * JSON body that was neither a problem nor carried the security headers.
 */
import fp from 'fastify-plugin';
import { ApiError } from '../errors.ts';
import type { Readiness } from '../readiness.ts';
import { routeConfigOf } from '../route-config.ts';

export default fp<{ readiness: Readiness }>(
  async function shutdownGate(app, { readiness }) {
    app.addHook('onRequest', (request, reply, done) => {
      // Probes are the routes the rate limit exempts (routes/probes.ts).
      if (!readiness.draining || routeConfigOf(request).rateLimitCost === false) return done();
      reply.header('connection', 'close');
      done(
        new ApiError('SERVICE_UNAVAILABLE', 'the server is shutting down; send the request again on a new connection', {
          headers: { 'retry-after': '1' },
        }),
      );
    });
  },
  { name: 'shutdown-gate' },
);
