/**
 * GET /metrics: the Prometheus exposition, rendered at most once a second (metrics-scrape-cache.ts)
 * and compressed once per render and encoding, and rate limited like any public route, so that a
 * scrape flood cannot buy CPU the API needs.
 * With METRICS_TOKEN set it also requires `Authorization: Bearer <METRICS_TOKEN>` (Prometheus's
 * `authorization` setting), compared in constant time; without it, it is public.
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SecretSet } from '@crypto-service/core';
import { ApiError } from '../errors.ts';
import { metricsExposition } from '../cluster/metrics.ts';
import { ScrapeCache } from '../metrics-scrape-cache.ts';
import type { Exposition } from '../cluster/metrics.ts';
import '../route-config.ts';

export interface MetricsEndpointOptions {
  /** METRICS_TOKEN; undefined leaves the route public. */
  token: string | undefined;
  /** METRICS_CACHE_MS: how long a rendered text is reused (0: render every scrape). */
  cacheMs?: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    metricsScrapes: ScrapeCache;
  }
}

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

type Encoding = 'br' | 'gzip';
const compressors: Record<Encoding, (text: string) => Promise<Buffer>> = {
  // The compression plugin's brotli quality: good for text at a fraction of the default's CPU.
  br: (text) => promisify(brotliCompress)(text, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }),
  gzip: (text) => promisify(gzip)(text),
};

/** The encoding to answer with: brotli, else gzip, when the client accepts it (q > 0); else none. */
export function scrapeEncoding(acceptEncoding: string | undefined): Encoding | undefined {
  if (acceptEncoding === undefined) return undefined;
  const accepted = new Set<string>();
  for (const item of acceptEncoding.toLowerCase().split(',')) {
    const [name = '', ...parameters] = item.split(';').map((part) => part.trim());
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    if (q === undefined || Number(q.slice(2)) > 0) accepted.add(name);
  }
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip') || accepted.has('x-gzip')) return 'gzip';
  return undefined;
}

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
  async function metricsEndpoint(app, { token, cacheMs }) {
    const scrapes = new ScrapeCache(() => metricsExposition(app.metricsRegistry), cacheMs);
    app.decorate('metricsScrapes', scrapes);
    // Each render's compressed forms, made once (off the event loop) and dropped with the render.
    const compressed = new WeakMap<Exposition, Map<Encoding, Promise<Buffer>>>();
    const compressedForm = (exposition: Exposition, encoding: Encoding): Promise<Buffer> => {
      let forms = compressed.get(exposition);
      if (forms === undefined) {
        forms = new Map();
        compressed.set(exposition, forms);
      }
      let form = forms.get(encoding);
      if (form === undefined) {
        form = compressors[encoding](exposition.body);
        forms.set(encoding, form);
      }
      return form;
    };
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
      async (request, reply) => {
        // In cluster mode, every worker's figures merged by the primary (cluster/metrics.ts).
        const exposition = await scrapes.get();
        reply.type(exposition.contentType).header('vary', 'accept-encoding');
        const encoding = scrapeEncoding(request.headers['accept-encoding']);
        if (encoding === undefined) return reply.send(exposition.body);
        // Already encoded: the compression plugin leaves a response with a Content-Encoding alone.
        return reply.header('content-encoding', encoding).send(await compressedForm(exposition, encoding));
      },
    );
  },
  { name: 'metrics-endpoint', dependencies: ['metrics'] },
);
