/**
 * The bare baseline's `POST /hash` (bench/bare-server.ts) with the production pipeline's
 * per-request features done inline in the handler: no hooks, no plugins, no schemas, each feature
 * by the production server's own code. What bench/features.ts compares with bare and production,
 * to tell the cost of the features themselves from the cost of the pipeline that runs them.
 *
 *   PORT=4000 CRYPTO_API_KEY=… RATE_LIMIT_MAX=10000000 FEATURES=all node bench/features-server.ts
 *
 * FEATURES: a comma-separated list of
 * - `security-headers`: the four headers every API answer carries (plugins/security-headers.ts's
 *   securityHeaderValues), set with `reply.header` one by one, as that plugin does;
 * - `rate-limit`: the client's count in production's MemoryStore and the two IETF RateLimit
 *   headers (plugins/rate-limit.ts's values);
 * - `authentication`: the x-api-key check of auth/authenticator.ts (a constant-time comparison
 *   against every configured key);
 * - `metrics`: the request's count and its latency in production's own histogram
 *   (plugins/latency-histogram.ts), as plugins/metrics.ts records them (the series found once);
 * - `logger`: Fastify's logger with production's options and its per-request child logger
 *   (logging.ts), at LOG_LEVEL;
 * or `all`, or `none` (bare-server.ts's route with this file's larger module graph: an A/A check).
 *
 * Left out: compression (for a 75-byte answer production only checks the size), the shutdown and
 * self-test gates, the schemas, the strict JSON body parser and the v1 deprecation hook: parts of
 * the production pipeline that the list (authentication, rate limiting, security headers,
 * compression, metrics) does not name.
 */
import { settleAsyncContext } from '../packages/server/src/async-context.ts';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { bytesToHex, utf8ToBytes } from '../packages/core/src/codec.ts';
import { digest } from '../packages/core/src/hash.ts';
import { Authenticator } from '../packages/server/src/auth/authenticator.ts';
import { loadConfig } from '../packages/server/src/config.ts';
import { handleError } from '../packages/server/src/errors.ts';
import { loggerOptions, requestChildLogger, requestLogController } from '../packages/server/src/logging.ts';
import { LATENCY_BUCKETS } from '../packages/server/src/plugins/metrics.ts';
import { LatencyHistogram } from '../packages/server/src/plugins/latency-histogram.ts';
import { rateLimitPolicy, rateLimitRemaining } from '../packages/server/src/plugins/rate-limit.ts';
import { securityHeaderValues } from '../packages/server/src/plugins/security-headers.ts';
import { MemoryStore } from '../packages/server/src/rate-limit/store.ts';

settleAsyncContext();

const FEATURES = ['security-headers', 'rate-limit', 'authentication', 'metrics', 'logger'] as const;

const listed = new Set((process.env.FEATURES ?? '').split(',').map((name) => name.trim()).filter(Boolean));
for (const name of listed) {
  if (name !== 'all' && name !== 'none' && !(FEATURES as readonly string[]).includes(name)) {
    throw new Error(`FEATURES: unknown feature ${name} (known: ${FEATURES.join(', ')}, all, none)`);
  }
}
const enabled = (feature: (typeof FEATURES)[number]) => listed.has('all') || listed.has(feature);
const withHeaders = enabled('security-headers');
const withRateLimit = enabled('rate-limit');
const withAuthentication = enabled('authentication');
const withMetrics = enabled('metrics');

const config = loadConfig(process.env);
const fromServer = createRequire(new URL('../packages/server/package.json', import.meta.url));
const { default: Fastify } = (await import(pathToFileURL(fromServer.resolve('fastify')).href)) as typeof import('fastify');

const securityHeaders = Object.entries(securityHeaderValues(false));
const authenticator = new Authenticator(config.auth);
const { max, windowMs } = config.rateLimit;
const store = new MemoryStore(windowMs);
const policy = rateLimitPolicy(max, Math.ceil(windowMs / 1000));
const latency = new LatencyHistogram('http_request_duration_seconds', 'as in production', LATENCY_BUCKETS);
const latencySeries = latency.series({ method: 'POST', route: '/hash', status_code: '200' });
const requestCount = { pending: 0 };

const app = Fastify(
  enabled('logger')
    ? { logger: loggerOptions(config.logLevel), logController: requestLogController(), childLoggerFactory: requestChildLogger }
    : { logger: false },
);

// A wrong or missing key is answered as production answers it (a 401 problem), not as a 500.
app.setErrorHandler(handleError);

app.get('/live', async () => ({ status: 'alive' }));

app.post<{ Body: { algorithm: string; data: string } }>('/hash', async (request, reply) => {
  const started = withMetrics ? performance.now() : 0;
  if (withHeaders) for (const [name, value] of securityHeaders) reply.header(name, value);
  if (withRateLimit) {
    const now = Date.now();
    const { used, resetAt } = store.consumeSync(request.ip, 1, windowMs, now);
    reply.header('ratelimit-policy', policy);
    reply.header('ratelimit', rateLimitRemaining(max, used, Math.max(0, Math.ceil((resetAt - now) / 1000))));
  }
  // Throws the ApiError of production's 401 for a missing or wrong key.
  if (withAuthentication) authenticator.authenticateWithoutToken(request.headers);
  const answer = { data: bytesToHex(digest(request.body.algorithm, utf8ToBytes(request.body.data))) };
  if (withMetrics) {
    requestCount.pending++;
    latency.observe(latencySeries, (performance.now() - started) / 1000);
  }
  return answer;
});

await app.listen({ port: Number(process.env.PORT), host: config.host });
