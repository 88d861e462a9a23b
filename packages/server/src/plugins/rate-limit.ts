/**
 * Pipeline stage 3: rate limiting per client, with cost weights and the IETF RateLimit headers
 * (draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy: "default";q=1000;w=60` and
 * `RateLimit: "default";r=997;t=42`).
 *
 * Written here rather than taken from @fastify/rate-limit because that plugin counts every request
 * as one unit and sends the older X-RateLimit-* headers; this service needs weighted costs (an
 * Argon2id hash is not a SHA-256 hash) and the IETF fields, and unknown routes must count too.
 *
 * The client is `request.ip` (the socket address, or the X-Forwarded-For hop that the trusted
 * proxies of TRUSTED_PROXY_CIDRS vouch for), normalised by rate-limit/client-address.ts: one IPv4
 * address however written, one IPv6 prefix (RATE_LIMIT_IPV6_PREFIX). This stage comes before
 * authentication by design, so that an unauthenticated flood is cut off cheaply;
 * RATE_LIMIT_KEY=credential moves the charge of a request that presents a credential to after it
 * (plugins/rate-limit-credential.ts).
 */
import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import { MemoryStore, type RateLimitStore, type WindowCount } from '../rate-limit/store.ts';
import { FailoverStore, isStoreRefusal, UNCOUNTED } from '../rate-limit/failover-store.ts';
import { declareRouteConfigCache, routeConfigOf } from '../route-config.ts';
import { addressKey, clientKeyOfHops, ForwardedAddress } from '../rate-limit/client-address.ts';
import type { RateLimitKeyKind } from '../config.ts';

export interface RateLimitOptions {
  max: number;
  windowMs: number;
  store?: RateLimitStore;
  /** IPv6 clients are keyed by this many leading bits (RATE_LIMIT_IPV6_PREFIX); 64 by default. */
  ipv6PrefixLength?: number;
  /** RATE_LIMIT_KEY; `address` by default. */
  keyBy?: RateLimitKeyKind;
  /** TRUSTED_PROXY_CIDRS, for requests answered before routing (chargeUnrouted). */
  trustedProxyCidrs?: readonly string[];
}

const POLICY_NAME = 'default';

/** The RateLimit-Policy header: the limit and its window. */
export function rateLimitPolicy(max: number, windowSeconds: number): string {
  return `"${POLICY_NAME}";q=${max};w=${windowSeconds}`;
}

/** The RateLimit header: the units left in this window and the seconds until it resets. */
export function rateLimitHeader(max: number, used: number, resetSeconds: number): string {
  // toFixed(0), not String(): V8 keeps the decimal string of each number String() converts in a
  // cache of its old generation, which would keep a new string per request alive through the next
  // scavenge; toFixed writes the same digits for these integers without touching that cache.
  return `"${POLICY_NAME}";r=${Math.max(0, max - used).toFixed(0)};t=${resetSeconds}`;
}

declare module 'fastify' {
  interface FastifyReply {
    /**
     * Charges `units` more to this client, once the body shows what the request will cost (an
     * SLH-DSA signature through `/v2/sign`, say). Throws the same 429 as the first stage when the
     * client is over its limit; updates the RateLimit header either way.
     */
    chargeRateLimit(units: number): Promise<void>;
  }
  interface FastifyRequest {
    /** The bucket this request is charged to; null until the rate limiter has decided it. */
    rateLimitKey: string | null;
    /**
     * Units not charged yet because the request presents a credential and RATE_LIMIT_KEY=credential:
     * charged to the credential once it is verified, to the address if the request ends before.
     */
    rateLimitDeferred: number;
  }
  interface FastifyInstance {
    /**
     * Charges one unit to the client of a request Fastify answers before routing (a malformed
     * URL), which no hook sees: the 429 to answer instead when the client is over its limit.
     */
    chargeUnrouted(request: FastifyRequest, reply: FastifyReply): Promise<ApiError | undefined>;
  }
}

/** Whether the request carries a credential of either kind (valid or not: the next stage decides). */
function presentsCredential(request: FastifyRequest): boolean {
  const { headers } = request;
  return headers['x-api-key'] !== undefined || /^bearer /i.test(headers.authorization ?? '');
}

export default fp<RateLimitOptions>(
  async function rateLimit(app, options) {
    const store = options.store ?? new MemoryStore(options.windowMs);
    const windowSeconds = Math.ceil(options.windowMs / 1000);
    const policy = rateLimitPolicy(options.max, windowSeconds);
    const ipv6PrefixLength = options.ipv6PrefixLength ?? 64;
    const byCredential = options.keyBy === 'credential';
    const forwarded = new ForwardedAddress(options.trustedProxyCidrs ?? []);
    declareRouteConfigCache(app);
    app.decorateRequest('rateLimitKey', null);
    app.decorateRequest('rateLimitDeferred', 0);

    /** The request's bucket by address: a forwarded value that is no address falls back to the hop that sent it. */
    function addressKeyOf(request: FastifyRequest): string {
      return addressKey(request.ip, ipv6PrefixLength) ?? clientKeyOfHops(request.ips ?? [], ipv6PrefixLength);
    }
    function keyOf(request: FastifyRequest): string {
      return (request.rateLimitKey ??= addressKeyOf(request));
    }

    /**
     * Sets the headers of a counted request; the 429 to throw when it is over the limit, or would
     * be with the `pending` units it has yet to be charged.
     */
    function apply(reply: FastifyReply, count: WindowCount, now: number, pending = 0): ApiError | undefined {
      // The shared store is down and RATE_LIMIT_FAILURE_MODE=open: nothing was counted, so no
      // header claims a quota.
      if (count === UNCOUNTED) return undefined;
      const { used, resetAt } = count;
      const resetSeconds = Math.max(0, Math.ceil((resetAt - now) / 1000));
      reply.header('ratelimit-policy', policy);
      reply.header('ratelimit', rateLimitHeader(options.max, used, resetSeconds));
      if (used + pending > options.max) {
        return new ApiError(
          'RATE_LIMITED',
          `rate limit exceeded: ${options.max} units per ${windowSeconds} s; retry after ${resetSeconds} s`,
          {
            headers: { 'retry-after': String(Math.max(1, resetSeconds)) },
          },
        );
      }
      return undefined;
    }

    async function charge(request: FastifyRequest, reply: FastifyReply, units: number): Promise<void> {
      const now = Date.now();
      const refusal = apply(reply, await store.consume(keyOf(request), units, options.windowMs, now), now);
      if (refusal !== undefined) throw refusal;
    }

    app.decorate('chargeUnrouted', async function chargeUnrouted(request: FastifyRequest, reply: FastifyReply) {
      const hops = forwarded.hops(request.socket.remoteAddress ?? '', request.headers['x-forwarded-for']);
      request.rateLimitKey = clientKeyOfHops(hops, ipv6PrefixLength);
      const now = Date.now();
      return apply(reply, await store.consume(request.rateLimitKey, 1, options.windowMs, now), now);
    });

    app.decorateReply('chargeRateLimit', async function chargeRateLimit(this: FastifyReply, units: number) {
      if (units > 0 && routeConfigOf(this.request).rateLimitCost !== false) {
        await charge(this.request, this, units);
      }
    });
    app.addHook('onClose', async () => store.close());
    if (store instanceof FailoverStore) {
      // The metrics plugin comes later in the pipeline, so its registry exists only from here; and
      // the app is ready once the shared store has been tried (connected, or its outage logged).
      app.addHook('onReady', async () => {
        if (app.hasDecorator('metricsRegistry')) store.registerMetrics(app.metricsRegistry);
        await store.ready();
      });
    }
    // Callback style: a count the store has at hand (MemoryStore always; a cluster worker's lease)
    // is applied with no promise at all; only a count from elsewhere (Redis, the cluster's primary)
    // is waited for.
    app.addHook('onRequest', (request, reply, done) => {
      const config = routeConfigOf(request);
      const cost = config.rateLimitCost ?? 1;
      if (cost === false) return done();
      if (byCredential && config.public !== true && !request.is404 && presentsCredential(request)) {
        // Charged after authentication; meanwhile an address already over its limit (from failed
        // credentials, say) is still refused here, at the cost of a look at its count.
        request.rateLimitDeferred = cost;
        return chargeOrRefuse(request, reply, 0, cost, done);
      }
      chargeOrRefuse(request, reply, cost, 0, done);
    });
    /**
     * Charges `cost` to the request's address and calls `done` with the 429 if it is over (or
     * would be with the `pending` units charged later).
     */
    function chargeOrRefuse(
      request: FastifyRequest,
      reply: FastifyReply,
      cost: number,
      pending: number,
      done: (error?: Error) => void,
    ): void {
      const now = Date.now();
      const key = keyOf(request);
      const count = store.consumeSync?.(key, cost, options.windowMs, now);
      if (count !== undefined) return done(apply(reply, count, now, pending));
      store
        .consume(key, cost, options.windowMs, now)
        .catch((error: unknown) => uncountedIfPublic(request, error))
        .then((counted) => done(apply(reply, counted, now, pending)), done);
    }
    /**
     * With RATE_LIMIT_FAILURE_MODE=closed a store outage refuses the work; the public routes
     * (metrics, docs) do none and stay up, so that monitoring can see the outage.
     */
    function uncountedIfPublic(request: FastifyRequest, error: unknown): WindowCount {
      if (routeConfigOf(request).public === true && isStoreRefusal(error)) return UNCOUNTED;
      throw error;
    }
    if (byCredential) {
      // A request that ended before its credential was verified (a 401, say) is charged to its address.
      app.addHook('onSend', async (request, reply) => {
        const units = request.rateLimitDeferred;
        if (units === 0) return;
        request.rateLimitDeferred = 0;
        const now = Date.now();
        apply(reply, await store.consume(keyOf(request), units, options.windowMs, now), now);
      });
    }
  },
  { name: 'rate-limit' },
);
