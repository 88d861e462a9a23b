/**
 * GET /metrics: the Prometheus exposition, rendered at most once a second (metrics-scrape-cache.ts)
 * and rate limited like any public route, so that a scrape flood cannot buy CPU the API needs.
 * With METRICS_TOKEN set it also requires `Authorization: Bearer <METRICS_TOKEN>` (Prometheus's
 * `authorization` setting), compared in constant time; without it, it is public.
 */
import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SecretSet } from '@crypto-service/core';
import { ApiError } from '../errors.ts';
import { metricsExposition } from '../cluster/metrics.ts';
import { ScrapeCache } from '../metrics-scrape-cache.ts';
import '../route-config.ts';

export interface MetricsEndpointOptions {
  /** METRICS_TOKEN; undefined leaves the route public. */
  token: string | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    metricsScrapes: ScrapeCache;
  }
}

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

/** The onRequest hook that refuses a scrape without the token: a 401 that says what to send. */
function requireToken(token: string) {
  const tokens = new SecretSet([Buffer.from(token, 'utf8')]);
  return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    const presented = BEARER.exec(request.headers.authorization ?? '')?.[1];
    if (presented !== undefined && tokens.matches(presented)) return done();
    done(
      new ApiError(
        'UNAUTHORIZED',
        presented === undefined
          ? 'missing credentials: /metrics needs the METRICS_TOKEN in an Authorization: Bearer header'
          : 'invalid metrics token',
        { headers: { 'www-authenticate': 'Bearer realm="metrics"' } },
      ),
    );
  };
}

export default fp<MetricsEndpointOptions>(
  async function metricsEndpoint(app, { token }) {
    const scrapes = new ScrapeCache(() => metricsExposition(app.metricsRegistry));
    app.decorate('metricsScrapes', scrapes);
    app.get(
      '/metrics',
      {
        config: { public: true },
        ...(token === undefined ? {} : { onRequest: requireToken(token) }),
        schema: {
          tags: ['meta'],
          summary: 'Prometheus metrics',
          description:
            'Rendered at most once a second. Rate limited like every public route; with METRICS_TOKEN set, it needs that token as a bearer token.',
          security: token === undefined ? [] : [{ bearer: [] }],
          produces: ['text/plain'],
        },
      },
      async (_request, reply) => {
        // In cluster mode, every worker's figures merged by the primary (cluster/metrics.ts).
        const { contentType, body } = await scrapes.get();
        return reply.type(contentType).send(body);
      },
    );
  },
  { name: 'metrics-endpoint', dependencies: ['metrics'] },
);
