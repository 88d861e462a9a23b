/**
 * The production app's POST /v2/hash route with a chosen subset of the request pipeline: what
 * bench/stages-server.ts serves and what `bench/pipeline-stages.ts --inject` measures in-process.
 * It rebuilds what packages/server/src/app.ts does, in the same order, from the server's own
 * plugins; if app.ts changes, this file must follow (the "full" variant is compared with the real
 * production server in every networked run, which shows any drift).
 *
 * Stages: logger (pino at LOG_LEVEL=warn, as logging.ts's appLogging gives it to the app), helmet (the
 * security-headers plugin: headers fixed at start, set with one reply.header() call each), cors (off anyway
 * without CORS_ORIGIN), rate-limit, compress, auth, metrics, json-body (the strict UTF-8 body
 * parser), self-tests (the start-up self-tests and their preHandler hook), timeouts (the handler
 * timeout as app.ts sets it, handler-timeout.ts: per route, only on the routes route-config.ts
 * lists, so not on /v2/hash; `timeout-all` puts it on every route), openapi.
 * Without metrics, the route's `app.operations.run` is a pass-through.
 */
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { loadConfig } from '../../packages/server/src/config.ts';
import { handleError } from '../../packages/server/src/errors.ts';
import { withHandlerTimeout } from '../../packages/server/src/handler-timeout.ts';
import { appLogging } from '../../packages/server/src/logging.ts';
import securityHeaders from '../../packages/server/src/plugins/security-headers.ts';
import corsPolicy from '../../packages/server/src/plugins/cors.ts';
import rateLimit from '../../packages/server/src/plugins/rate-limit.ts';
import compression from '../../packages/server/src/plugins/compression.ts';
import authentication from '../../packages/server/src/plugins/authentication.ts';
import metrics from '../../packages/server/src/plugins/metrics.ts';
import jsonBody from '../../packages/server/src/plugins/json-body.ts';
import openApi from '../../packages/server/src/plugins/openapi.ts';
import selfTests from '../../packages/server/src/plugins/self-tests.ts';
import { Readiness } from '../../packages/server/src/readiness.ts';
import { hasHandlerTimeout } from '../../packages/server/src/route-config.ts';
import { hashRoutes } from '../../packages/server/src/routes/hash.ts';


export const ALL_STAGES = ['logger', 'helmet', 'rate-limit', 'compress', 'auth', 'metrics', 'json-body', 'self-tests', 'timeouts', 'openapi'] as const;

export async function buildStagesApp(stages: ReadonlySet<string>, apiKey: string): Promise<FastifyInstance> {
  const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'warn', CRYPTO_API_KEY: apiKey, RATE_LIMIT_MAX: '10000000' });
  const logging = stages.has('logger') ? appLogging(config.logLevel) : undefined;
  const app = Fastify({
    ...(logging !== undefined ? logging.serverOptions : { logger: false }),
    bodyLimit: config.bodyLimitBytes,
    trustProxy: false,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: true, allErrors: false } },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { maxParamLength: 200 },
  } as FastifyServerOptions) as unknown as FastifyInstance;
  logging?.attach(app);
  app.setErrorHandler(handleError);
  if (stages.has('timeouts') || stages.has('timeout-all')) {
    app.addHook('onRoute', (route) => {
      if (stages.has('timeout-all') || hasHandlerTimeout(route.url ?? '')) route.handler = withHandlerTimeout(route.handler, config.timeouts.handlerMs);
    });
  }

  // First, as in app.ts.
  if (stages.has('metrics')) {
    await app.register(metrics);
  } else {
    app.decorate('operations', { run: <T>(_operation: string, _algorithm: string, work: () => T): T => work() });
  }
  if (stages.has('helmet')) await app.register(securityHeaders);
  if (stages.has('cors')) await app.register(corsPolicy, { origins: config.corsOrigins });
  if (stages.has('rate-limit')) await app.register(rateLimit, { ...config.rateLimit });
  if (stages.has('compress')) await app.register(compression);
  if (stages.has('auth')) await app.register(authentication, { auth: config.auth });
  if (stages.has('json-body')) await app.register(jsonBody);
  if (stages.has('self-tests')) {
    app.decorate('readiness', new Readiness());
    await app.register(selfTests);
  }
  if (stages.has('openapi')) await app.register(openApi, { version: 'bench' });

  app.get('/live', { config: { public: true, rateLimitCost: false } }, async () => ({ status: 'alive' }));
  await app.register(hashRoutes);
  await app.ready();
  // Like the production server, serve once the start-up self-tests have passed (503s before).
  if (stages.has('self-tests')) await app.selfTests.done;
  return app;
}
