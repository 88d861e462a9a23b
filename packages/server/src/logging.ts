/**
 * Structured logs (pino, through Fastify) that never contain request bodies, keys, passwords or
 * tokens: requests are logged by method, path (no query string: it could carry a credential),
 * client address and id, and the credential headers are redacted should anything log them.
 */
import Fastify, { type FastifyReply, type FastifyServerOptions, type FastifyRequest } from 'fastify';
import type { DestinationStream } from 'pino';
import { stdoutDestination } from './log-destination.ts';
import type { LogLevel } from './config.ts';

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
 * Request log lines: one at `info` when a request completes, with method, path, client and status;
 * the arrival only at `debug`. Fastify's default writes both at `info`, which doubles the cost of
 * logging on the hot path, and its completion line does not say which route was called.
 */
class RequestLogs extends Fastify.LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const fields = { req: request, res: { statusCode: reply.statusCode }, responseTime: reply.elapsedTime };
    if (error) {
      reply.log.error({ ...fields, err: error }, 'request errored');
    } else {
      reply.log.info(fields, 'request completed');
    }
  }
}

/**
 * The schema validator's (Ajv's) logger: the console, minus one line. The server runs Ajv with
 * `unicode: false` (maxLength counts UTF-16 code units in O(1) instead of walking every string,
 * 3 ms per MiB), an option Ajv 8 still honours but announces as deprecated on every start.
 */
export const schemaValidatorLogger = {
  log: (...args: unknown[]) => console.log(...args),
  warn: (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].startsWith('DEPRECATED: option unicode.')) return;
    console.warn(...args);
  },
  error: (...args: unknown[]) => console.error(...args),
};

export function requestLogController(): InstanceType<typeof Fastify.LogController> {
  return new RequestLogs();
}
