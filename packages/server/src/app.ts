/**
 * The app: a Fastify instance built from the pipeline plugins (security headers, CORS, rate
 * limiting, compression, authentication, handler, in that order), the shared infrastructure the
 * routes declare as dependencies, and the routes. Tests inject requests into it; server.ts listens
 * with it.
 */
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyServerOptions,
  type RouteOptions,
} from 'fastify';
import type { DestinationStream } from 'pino';
import type { Config } from './config.ts';
import { clientErrorHandler, handleError, schemaValidationError, sendProblem } from './errors.ts';
import { appLogging } from './logging.ts';
import { AJV_CUSTOM_OPTIONS } from './ajv-options.ts';
import { Readiness } from './readiness.ts';
import shutdownGate from './plugins/shutdown-gate.ts';
import securityHeaders, { reachedOverHttps, securityHeaderValues } from './plugins/security-headers.ts';
import { deprecationHeaders, isV1Path, v1DeprecationHeaders } from './v1/deprecation.ts';
import corsPolicy from './plugins/cors.ts';
import rateLimit from './plugins/rate-limit.ts';
import rateLimitByCredential from './plugins/rate-limit-credential.ts';
import compression from './plugins/compression.ts';
import hostHeader from './plugins/host-header.ts';
import { capConnectionsPerAddress } from './connection-cap.ts';
import authentication from './plugins/authentication.ts';
import metrics from './plugins/metrics.ts';
import metricsEndpoint from './plugins/metrics-endpoint.ts';
import jsonBody from './plugins/json-body.ts';
import openApi from './plugins/openapi.ts';
import { probeRoutes } from './routes/probes.ts';
import { algorithmRoutes } from './routes/algorithms.ts';
import { hashRoutes } from './routes/hash.ts';
import { symmetricRoutes } from './routes/symmetric.ts';
import { streamRoutes } from './routes/streams.ts';
import { signatureRoutes } from './routes/signatures.ts';
import { derivationRoutes } from './routes/derivation.ts';
import { multiRecipientRoutes } from './routes/multi-recipient.ts';
import { pqRoutes } from './routes/pq.ts';
import { v1Routes } from './v1/routes.ts';
import type { RateLimitStore } from './rate-limit/store.ts';
import handlerTimeout from './plugins/handler-timeout.ts';
import batches from './plugins/batch.ts';
import pqOffload from './plugins/pq-offload.ts';
import workQueues from './plugins/work-queues.ts';
import { ClientJobCap } from './client-job-cap.ts';
import { createRateLimitStore } from './rate-limit/create-store.ts';
import selfTests, { type SelfTestPluginOptions } from './plugins/self-tests.ts';
import { SERVICE_VERSION } from './version.ts';

export interface AppOptions {
  /** Where logs go (tests capture them); stdout by default. */
  logStream?: DestinationStream;
  /** Turns logging off entirely, whatever LOG_LEVEL says. */
  quiet?: boolean;
  readiness?: Readiness;
  /** Where rate-limit counters live; by default chosen from the configuration (create-store.ts). */
  rateLimitStore?: RateLimitStore;
  /** Replaces individual start-up self-tests (tests make one fail this way). */
  selfTests?: SelfTestPluginOptions['overrides'];
  /** Sees every route as it is declared (tests list the app's routes this way). */
  onRoute?: (route: RouteOptions) => void;
}

declare module 'fastify' {
  interface FastifyInstance {
    readiness: Readiness;
  }
}

export async function buildApp(config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  // Node enforces the headers and request timeouts only when it checks its connections, every
  // connectionsCheckingInterval (30 s by default): a slow client would keep its socket up to 30 s
  // past them. Checking four times per headers timeout (at most once a second) keeps the overrun
  // under a quarter of it. Set at construction: Node reads it when the server starts listening.
  const connectionChecks = {
    connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(config.timeouts.headersMs / 4))),
    // Node's own refusal of a Host-less HTTP/1.1 request is a bare 400: plugins/host-header.ts answers it instead.
    requireHostHeader: false,
  };
  const logging = appLogging(options.quiet === true ? 'silent' : config.logLevel, options.logStream);
  const serverOptions: FastifyServerOptions = {
    ...logging.serverOptions,
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustedProxyCidrs.length > 0 ? config.trustedProxyCidrs : false,
    ajv: { customOptions: { ...AJV_CUSTOM_OPTIONS } },
    // Answered from the validation errors by handleError: the error itself needs no message or stack.
    schemaErrorFormatter: schemaValidationError,
    // A slow or malformed client is answered with a problem too (408, 431, 400), never Fastify's own JSON.
    // The connection is TLS exactly when the server is: the request never got to say otherwise.
    clientErrorHandler: clientErrorHandler(securityHeaderValues(config.tls !== undefined)),
    // Slow clients and stuck handlers (SECURITY.md): the whole request must arrive within
    // REQUEST_TIMEOUT_MS (408), a route of variable cost must answer within HANDLER_TIMEOUT_MS
    // (503; plugins/handler-timeout.ts, not here), idle keep-alive sockets close after
    // KEEP_ALIVE_TIMEOUT_MS. The headers timeout is set below.
    requestTimeout: config.timeouts.requestMs,
    keepAliveTimeout: config.timeouts.keepAliveMs,
    // Off: a request arriving while draining is refused by plugins/shutdown-gate.ts instead, as a problem.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    routerOptions: { maxParamLength: 200 },
    // A URL that cannot even be decoded (`/v2/%zz`) never reaches the hooks: answer it here, as a
    // problem with the same security (and, under /v1, deprecation) headers as everything else.
    frameworkErrors: (_error, request, reply) => {
      logging.adopt(request, reply);
      // Fastify hands this hook a request without its trust-proxy getters: HSTS here only when
      // the server itself speaks TLS. Harmless: a browser keeps HSTS from any other response.
      reply.headers(securityHeaderValues(reachedOverHttps(request)));
      if (isV1Path(request.raw.url ?? '')) reply.headers(deprecationHeaders(config.v1));
      // Counted like any request, so that malformed URLs are no way around the rate limit.
      app.chargeUnrouted(request, reply).then(
        (refusal) =>
          refusal === undefined
            ? sendProblem(reply, request, 'VALIDATION_FAILED', 'the request URL is malformed')
            : handleError(refusal as FastifyError, request, reply),
        (error: unknown) => handleError(error as FastifyError, request, reply),
      );
    },
  };
  // PROTOCOL=https: the same app over TLS. Fastify's types model an https server as a different
  // instance type; nothing here depends on the difference, hence the one cast.
  const tls =
    config.tls === undefined
      ? { http: connectionChecks }
      : { https: { cert: config.tls.cert, key: config.tls.key, ...connectionChecks } };
  const app = Fastify({ ...serverOptions, ...tls } as FastifyServerOptions) as unknown as FastifyInstance;
  logging.attach(app);

  // Fastify has no option for it: the request line and headers must arrive within this.
  app.server.headersTimeout = config.timeouts.headersMs;
  if (config.maxConnectionsPerIp > 0) capConnections(app, config);
  // An `Expect` other than 100-continue: Node would answer a bare 417 (no problem body, no security
  // headers). RFC 9110 §10.1.1 lets a server ignore it instead, so the request goes through the
  // pipeline like any other.
  app.server.on('checkExpectation', (request, response) => app.server.emit('request', request, response));

  if (options.onRoute !== undefined) app.addHook('onRoute', options.onRoute);
  const readiness = options.readiness ?? new Readiness();
  app.decorate('readiness', readiness);
  app.setErrorHandler(handleError);

  // First, so that its clock starts before any stage can refuse the request (a 401, a 429).
  await app.register(metrics);
  // The pipeline. Each stage adds onRequest hooks on the root instance, which run in this order.
  await app.register(securityHeaders);
  await app.register(corsPolicy, { origins: config.corsOrigins });
  await app.register(shutdownGate, { readiness });
  const store = options.rateLimitStore ?? createRateLimitStore(config.rateLimit, app.log);
  await app.register(rateLimit, {
    max: config.rateLimit.max,
    windowMs: config.rateLimit.windowMs,
    store,
    ipv6PrefixLength: config.rateLimitKey.ipv6PrefixLength,
    keyBy: config.rateLimitKey.by,
    trustedProxyCidrs: config.trustedProxyCidrs,
  });
  await app.register(hostHeader);
  await app.register(compression);
  await app.register(authentication, { auth: config.auth });
  if (config.rateLimitKey.by === 'credential') await app.register(rateLimitByCredential);
  await app.register(jsonBody);
  await app.register(selfTests, { ...(options.selfTests ? { overrides: options.selfTests } : {}) });
  await app.register(openApi, { version: SERVICE_VERSION });

  app.setNotFoundHandler((request, reply) => {
    const path = (request.raw.url ?? '/').split('?', 1)[0] ?? '/';
    const allowed = ['GET', 'POST'].filter((method) => app.hasRoute({ method, url: path }));
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendProblem(
        reply,
        request,
        'METHOD_NOT_ALLOWED',
        `${request.method} is not allowed here; use ${allowed.join(' or ')}`,
      );
    }
    return sendProblem(reply, request, 'NOT_FOUND', 'no such route; see /docs for the list');
  });

  // Shared infrastructure: named plugins that the route plugins below declare as dependencies.
  const refusalDelayMs = config.busyRefusalDelayMs;
  // One count of each client's heavy jobs for all the heavy queues (client-job-cap.ts).
  const clientCap = new ClientJobCap(config.maxHeavyJobsPerClient);
  // Before the handler timeout: a batch runs under one timer, as one request.
  await app.register(batches, { maxItems: config.batchMaxItems });
  await app.register(handlerTimeout, { timeoutMs: config.timeouts.handlerMs });
  await app.register(pqOffload, { queue: { threadNice: config.heavyWorkNice, refusalDelayMs, clientCap } });
  await app.register(workQueues, {
    password: { ...config.workQueues.password, refusalDelayMs },
    kdf: { ...config.workQueues.kdf, refusalDelayMs },
    clientCap,
  });

  // In the order of the OpenAPI document's paths.
  await app.register(probeRoutes, { readiness });
  await app.register(metricsEndpoint, { token: config.metricsToken, cacheMs: config.metricsCacheMs });
  await app.register(pqRoutes);
  await app.register(algorithmRoutes);
  await app.register(hashRoutes);
  await app.register(symmetricRoutes);
  await app.register(streamRoutes, { maxBytes: config.streamMaxBytes });
  await app.register(signatureRoutes);
  await app.register(derivationRoutes);
  await app.register(multiRecipientRoutes);
  await app.register(v1DeprecationHeaders, { v1: config.v1 });
  await app.register(v1Routes, { config });
  return app;
}

/** How often, at most, a client held at MAX_CONNECTIONS_PER_IP is logged. */
const CONNECTION_CAP_LOG_INTERVAL_MS = 10_000;

function capConnections(app: FastifyInstance, config: Config): void {
  let loggedAt = -Infinity;
  capConnectionsPerAddress(app.server, {
    maxPerAddress: config.maxConnectionsPerIp,
    ipv6PrefixLength: config.rateLimitKey.ipv6PrefixLength,
    onRefused: (client) => {
      const now = performance.now();
      if (now - loggedAt < CONNECTION_CAP_LOG_INTERVAL_MS) return;
      loggedAt = now;
      app.log.warn(
        { client, max: config.maxConnectionsPerIp },
        'MAX_CONNECTIONS_PER_IP reached: new connections from this client are closed',
      );
    },
  });
}
