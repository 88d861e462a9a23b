/**
 * Structured logs (pino, through Fastify) that never contain request bodies, keys, passwords or
 * tokens: requests are logged by method, path (no query string: it could carry a credential),
 * client address and id, and the credential headers are redacted should anything log them.
 */
import type { FastifyInstance, FastifyServerOptions, FastifyRequest } from 'fastify';
import pino, { type DestinationStream } from 'pino';
import type { LogLevel } from './config.ts';

/**
 * Standard output, written synchronously, with write errors ignored. pino's default writer is
 * asynchronous and flushes at exit, retrying a failed write every 100 ms forever: with the reader
 * of stdout gone (a dead log shipper, EPIPE), SIGTERM — and even the forced exit after
 * SHUTDOWN_TIMEOUT_MS — would never end the process. Losing log lines is better than that.
 */
function stdoutDestination(): DestinationStream {
  const destination = pino.destination({ dest: 1, sync: true });
  destination.on('error', () => {});
  return destination;
}

export function loggerOptions(level: LogLevel, stream?: DestinationStream): FastifyServerOptions['logger'] {
  return {
    level,
    stream: stream ?? stdoutDestination(),
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', 'headers.authorization', 'headers["x-api-key"]'],
      censor: '[redacted]',
    },
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: (request.url ?? '').split('?', 1)[0],
        remoteAddress: request.ip,
        id: request.id,
      }),
    },
  };
}

/**
 * One line per request at `info`, when it completes; the arrival is logged too, but only at
 * `debug` (Fastify's own request logging writes both at `info`, doubling the cost of logging on
 * the hot path).
 */
export function logRequests(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    request.log.debug({ req: request }, 'incoming request');
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info({ req: request, res: { statusCode: reply.statusCode }, responseTime: reply.elapsedTime }, 'request completed');
  });
}
