/**
 * Structured logs (pino, through Fastify) that never contain request bodies, keys, passwords or
 * tokens: requests are logged by method, path (no query string: it could carry a credential),
 * client address and id, and the credential headers are redacted should anything log them.
 */
import type { FastifyServerOptions, FastifyRequest } from 'fastify';
import type { DestinationStream } from 'pino';
import type { LogLevel } from './config.ts';

export function loggerOptions(level: LogLevel, stream?: DestinationStream): FastifyServerOptions['logger'] {
  return {
    level,
    ...(stream === undefined ? {} : { stream }),
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
