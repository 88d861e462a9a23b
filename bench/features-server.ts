/**
 * The bare baseline's `POST /hash` (bench/bare-server.ts) with the production pipeline's
 * per-request features done inline in the handler, each by the production server's own code: what
 * bench/features.ts compares with bare and production, to tell the cost of the features themselves
 * from the cost of the pipeline that runs them. Keep it in step with the plugins it copies from.
 *
 *   PORT=4000 CRYPTO_API_KEY=… RATE_LIMIT_MAX=10000000 FEATURES=all node bench/features-server.ts
 *
 * FEATURES: a comma-separated list of
 * - `security-headers`: plugins/security-headers.ts's choice (HTTPS? the docs page?) and the four
 *   headers of every API answer, set with `reply.header` one by one, as that plugin does;
 * - `rate-limit`: the route's cost, the client's count in production's MemoryStore, the two IETF
 *   RateLimit headers (plugins/rate-limit.ts's values) and the over-the-limit check;
 * - `authentication`: the x-api-key check of auth/authenticator.ts (a constant-time comparison
 *   against every configured key), the route's scope granted, the principal kept on the request;
 * - `metrics`: plugins/metrics.ts itself: its registry and default collectors, the hash counted
 *   through `app.operations.run` as routes/hash.ts does, and the request timed and counted by the
 *   plugin's onRequest and onSend hooks;
 * - `logger`: the app's logging as logging.ts's appLogging sets it up at LOG_LEVEL (at warn:
 *   pino outside Fastify, the per-request child logger, no response listeners);
 * or `all`, or `none` (bare-server.ts's route with this file's larger module graph: an A/A check).
 * The route's config is read once per request (route-config.ts), as production's stages read it.
 *
 * Left out: compression (named in issue 7's list of the pipeline, but for a 75-byte answer
 * production only checks the size), and what that list does not name: the shutdown and self-test
 * gates, the route's schemas, the strict JSON body parser and the v1 deprecation hook.
 */
// First, as in the production server's entry point: when Node settles its async-context
// implementation changes the cost of every tick by a few per cent (bench/bare-server.ts).
import { settleAsyncContext } from '../packages/server/src/async-context.ts';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { bytesToHex, utf8ToBytes } from '../packages/core/src/codec.ts';
import { digest } from '../packages/core/src/hash.ts';
import { Authenticator } from '../packages/server/src/auth/authenticator.ts';
import { grants } from '../packages/server/src/auth/scopes.ts';
import { loadConfig } from '../packages/server/src/config.ts';
import { ApiError, handleError } from '../packages/server/src/errors.ts';
import { appLogging } from '../packages/server/src/logging.ts';
import metrics from '../packages/server/src/plugins/metrics.ts';
import { rateLimitHeader, rateLimitPolicy } from '../packages/server/src/plugins/rate-limit.ts';
import { isDocsPath, reachedOverHttps, securityHeaderValues } from '../packages/server/src/plugins/security-headers.ts';
import { MemoryStore } from '../packages/server/src/rate-limit/store.ts';
import { declareRouteConfigCache, routeConfigOf } from '../packages/server/src/route-config.ts';

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

const apiHeaders = Object.entries(securityHeaderValues(false));
const secureApiHeaders = Object.entries(securityHeaderValues(true));
const authenticator = new Authenticator(config.auth);
const { max, windowMs } = config.rateLimit;
const store = new MemoryStore(windowMs);
const policy = rateLimitPolicy(max, Math.ceil(windowMs / 1000));

const logging = enabled('logger') ? appLogging(config.logLevel) : undefined;
const app = Fastify(logging !== undefined ? logging.serverOptions : { logger: false });
logging?.attach(app);
// A wrong or missing key, or a count over the limit, is answered as production answers it (a
// 401 or 429 problem), not as a 500.
app.setErrorHandler(handleError);
declareRouteConfigCache(app);
app.decorateRequest('principal', null);
if (withMetrics) await app.register(metrics);

app.get('/live', async () => ({ status: 'alive' }));

app.post<{ Body: { algorithm: string; data: string } }>('/hash', { config: { scope: 'crypto:hash' } }, async (request, reply) => {
  const route = withRateLimit || withAuthentication ? routeConfigOf(request) : undefined;
  if (withHeaders && !isDocsPath(request.url)) {
    for (const [name, value] of reachedOverHttps(request) ? secureApiHeaders : apiHeaders) reply.header(name, value);
  }
  if (withRateLimit && route?.rateLimitCost !== false) {
    const now = Date.now();
    const { used, resetAt } = store.consumeSync(request.ip, route?.rateLimitCost ?? 1, windowMs, now);
    const resetSeconds = Math.max(0, Math.ceil((resetAt - now) / 1000));
    reply.header('ratelimit-policy', policy);
    reply.header('ratelimit', rateLimitHeader(max, used, resetSeconds));
    if (used > max) throw new ApiError('RATE_LIMITED', `rate limit exceeded; retry after ${resetSeconds} s`);
  }
  if (withAuthentication) {
    // Throws the ApiError of production's 401 for a missing or wrong key; undefined only for a
    // bearer token when JWT_SECRET is set, which this server is never given.
    const principal = authenticator.authenticateWithoutToken(request.headers);
    if (principal === undefined) throw new Error('the features server checks API keys only');
    if (route?.scope !== undefined && !grants(principal.grant, route.scope)) throw new ApiError('FORBIDDEN', `this credential lacks the scope ${route.scope}`);
    request.principal = principal;
  }
  const { algorithm, data } = request.body;
  const hash = () => digest(algorithm, utf8ToBytes(data));
  return { data: bytesToHex(withMetrics ? app.operations.run('hash', algorithm, hash) : hash()) };
});

await app.listen({ port: config.port, host: config.host });
