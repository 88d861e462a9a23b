/**
 * Structured logs (pino, through Fastify) that never contain request bodies, keys, passwords or
 * tokens: requests are logged by method, path (no query string: it could carry a credential),
 * client address and id, and the credential headers are redacted should anything log them.
 */
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyServerOptions,
  type FastifyRequest,
} from 'fastify';
import {
  pino,
  stdSerializers,
  type Bindings,
  type ChildLoggerOptions,
  type DestinationStream,
  type LevelWithSilentOrString,
  type Logger,
} from 'pino';
import { stdoutDestination } from './log-destination.ts';
import type { LogLevel } from './config.ts';

/**
 * The credential headers, redacted wherever a line carries a `headers` object. Not under `req`:
 * anything logged as `req` goes through the serializer below first, which keeps no header at all,
 * so a `req.headers.…` path could never match, while pino would run the redaction on every line
 * that has a `req`, every access line, for nothing (see docs/performance.md). Two ways around that
 * serializer are therefore off limits, and a test (secrets-hygiene.test.ts) checks the source for
 * them: a route's own log serializers (a child logger with another `req` serializer), and a
 * printf-style object placeholder (percent and j, o or O) in a log message, whose object pino
 * interpolates with no serializer at all.
 */
const REDACTED_PATHS = ['headers.authorization', 'headers["x-api-key"]', 'headers.cookie'];

/** The levels at which a request's completion is logged (the access line, at `info`). */
const ACCESS_LINE_LEVELS: ReadonlySet<LogLevel> = new Set(['info', 'debug']);

/**
 * Pino's options for the app: the level, the destination, the redaction and the serializers.
 * `res` and `err` are Fastify's own (it adds them to a logger it builds, not to one built here).
 */
export function loggerOptions(level: LogLevel, stream?: DestinationStream) {
  return {
    level,
    stream: stream ?? stdoutDestination(),
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: (request.url ?? '').split('?', 1)[0],
        remoteAddress: request.ip,
        id: request.id,
      }),
      res: (reply: { statusCode: number }) => ({ statusCode: reply.statusCode }),
      err: stdSerializers.err,
    },
  };
}

/** The app's logging: Fastify's options, and what to do with the app once built. */
export interface AppLogging {
  readonly serverOptions: Pick<FastifyServerOptions, 'logger' | 'logController' | 'childLoggerFactory'>;
  /**
   * Gives the app its logger (`app.log`) when Fastify was given none, and the hook that gives each
   * request its own. Called before any plugin is registered, so that the hook runs first.
   */
  attach(app: FastifyInstance): void;
  /**
   * Gives a request that never reaches the hooks (app.ts's `frameworkErrors`) the logger the hook
   * would have given it.
   */
  adopt(request: FastifyRequest, reply: FastifyReply): void;
}

/**
 * How the app logs at `level`. Where a level writes an access line (info, debug), Fastify
 * gets the logger, and with it the response's `finish` listener that tells the log controller a
 * request completed. At the other levels (warn, error, silent) no request logs its
 * completion, and Fastify gets no logger at all: a Fastify with a logger adds a `finish` and an
 * `error` listener, a closure and two clock reads to every response, which the bare Fastify of
 * the benchmarks does not pay. The same pino logger is then built here, handed to every request by
 * the first onRequest hook (below) and set as `app.log`, so every line that would be written with a
 * Fastify logger still is.
 * In principle three things are gone: Fastify's `request errored`, for an `error` event the
 * response itself emits before it finishes, which none of those raised; the two warnings of
 * Fastify's `fourOhFourFallBack`, for a request that no route and no 404 handler matched, which
 * Fastify itself calls a bug of its own (the 404 handler takes every path and method); and a
 * route's own log level or log serializers, which Fastify hands only to a child-logger factory
 * (no route sets either, and secrets-hygiene.test.ts keeps routes from having serializers).
 */
export function appLogging(level: LogLevel, stream?: DestinationStream): AppLogging {
  const options = loggerOptions(level, stream);
  if (ACCESS_LINE_LEVELS.has(level)) {
    return {
      serverOptions: { logger: options, logController: new RequestLogs(), childLoggerFactory: requestChildLogger },
      attach: () => {},
      adopt: () => {},
    };
  }
  const { stream: destination, ...pinoOptions } = options;
  const root = pino(pinoOptions, destination) as FastifyBaseLogger;
  const adopt = (request: FastifyRequest, reply: FastifyReply): void => {
    const logger = new RequestLogger(root, { [REQUEST_ID_LABEL]: request.id }) as unknown as FastifyBaseLogger;
    request.log = logger;
    reply.log = logger;
  };
  return {
    // No child-logger factory either: Fastify then hands each request its no-op logger as it is,
    // where a factory of our own has every logger it returns checked, method by method, on every
    // request (its `validateLogger`: fourteen property loads by a variable name, each a probe of
    // V8's megamorphic cache). The hook below gives
    // the request its real logger, before anything can log: it is the first hook (a test checks),
    // and nothing Fastify does between routing and the hooks writes a line at these levels (the
    // arrival line is `debug`, the completion line `info`).
    serverOptions: { logger: false, logController: new QuietRequestLogs() },
    attach: (app) => {
      // Plugins' instances inherit `log` from the root instance: set before any is registered.
      (app as { log: FastifyBaseLogger }).log = root;
      app.addHook('onRequest', function giveRequestItsLogger(request, reply, done) {
        adopt(request, reply);
        done();
      });
    },
    adopt,
  };
}

/**
 * The binding that names a request in its log lines: Fastify's default `requestIdLogLabel`, which
 * app.ts leaves as it is.
 */
const REQUEST_ID_LABEL = 'reqId';

/**
 * Request log lines: one at `info` when a request completes, with method, path, client and status;
 * the arrival only at `debug`. Fastify's default writes both at `info`, which doubles the cost of
 * logging on the hot path, and its completion line does not say which route was called.
 */
class RequestLogs extends Fastify.LogController {
  // The level is asked first: below it, no fields object is built and no clock is read (the
  // elapsed time) for a line that would not be written.
  override incomingRequest(request: FastifyRequest): void {
    if (isLevelEnabled(request.log, 'debug')) request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (!isLevelEnabled(reply.log, error ? 'error' : 'info')) return;
    const fields = { req: request, res: { statusCode: reply.statusCode }, responseTime: reply.elapsedTime };
    if (error) {
      reply.log.error({ ...fields, err: error }, 'request errored');
    } else {
      reply.log.info(fields, 'request completed');
    }
  }
}

/**
 * The log controller at the levels that write no access line (warn, error, silent), where Fastify
 * has no logger. The arrival is logged at `debug` only, so there is nothing to do when a request
 * arrives (its logger is still Fastify's no-op one then). A completion Fastify reports only for a
 * route with onResponse hooks or Fastify's own handler timeout (none here); it would log a failure
 * through the request's logger, which the hook has given it by then.
 */
class QuietRequestLogs extends RequestLogs {
  override incomingRequest(): void {}
}

/** Whether `logger` writes lines at `level`; a logger that cannot say is asked to write them. */
function isLevelEnabled(logger: FastifyBaseLogger, level: string): boolean {
  const ask = (logger as Partial<Logger>).isLevelEnabled;
  return ask === undefined || ask.call(logger, level);
}

type LogMethod = FastifyBaseLogger['info'];
const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

/**
 * A request's logger (`request.log`, `reply.log`) that makes pino's child logger, bound to the
 * request id, only when the request first logs at an enabled level. Every request gets a logger
 * (at info and debug from Fastify, through requestChildLogger; below, from appLogging's hook), and
 * pino's child() serialises its bindings each time; at LOG_LEVEL=warn a request that succeeds logs nothing, so most requests never need
 * one. A line that is written goes through the real child: same bindings, serializers and
 * redaction as before.
 */
class RequestLogger {
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  #child: FastifyBaseLogger | undefined;
  declare fatal: LogMethod;
  declare error: LogMethod;
  declare warn: LogMethod;
  declare info: LogMethod;
  declare debug: LogMethod;
  declare trace: LogMethod;

  constructor(parent: FastifyBaseLogger, bindings: Bindings) {
    this.#parent = parent;
    this.#bindings = bindings;
  }

  #logger(): FastifyBaseLogger {
    return (this.#child ??= this.#parent.child(this.#bindings));
  }

  /** The level is the parent's until a child exists (pino children inherit it). */
  get level(): LevelWithSilentOrString {
    return (this.#child ?? this.#parent).level;
  }

  set level(level: LevelWithSilentOrString) {
    this.#logger().level = level;
  }

  isLevelEnabled(level: string): boolean {
    // Only ever made around a pino logger (requestChildLogger, appLogging's adopt).
    return ((this.#child ?? this.#parent) as Logger).isLevelEnabled(level);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger().child(bindings, options);
  }

  static {
    for (const level of LEVELS) {
      Object.defineProperty(RequestLogger.prototype, level, {
        value: function log(this: RequestLogger, ...args: Parameters<LogMethod>) {
          if (!this.isLevelEnabled(level)) return;
          const logger = this.#logger();
          logger[level](...args);
        },
      });
    }
  }
}

/**
 * Fastify's `childLoggerFactory` at info and debug: a RequestLogger around Fastify's own pino
 * logger (at the other levels, `silent` included, appLogging's hook makes the RequestLogger).
 * Options (a route's own log level or serializers; no route here sets any) need the real child at
 * once.
 */
export function requestChildLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  if (options.level !== undefined || options.serializers !== undefined) return logger.child(bindings, options);
  return new RequestLogger(logger, bindings) as unknown as FastifyBaseLogger;
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
