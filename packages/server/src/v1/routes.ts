/**
 * The deprecated /v1 routes: OpenPGP on OpenPGP.js 6, readable by GnuPG and reading
 * what GnuPG makes. `POST /v1/generate`, `/v1/encrypt`, `/v1/decrypt`, `/v1/sign`, `/v1/verify`,
 * `/v1/revoke`.
 *
 * - Same pipeline as /v2 (authentication with scopes, rate limiting, problem errors), plus the
 *   deprecation headers on every /v1 response (deprecation.ts, registered by app.ts on the root
 *   instance, where the 404 handler and the pipeline's 401 and 429 replies see it).
 * - The OpenPGP work runs in worker threads behind a bounded queue (pool.ts); the handlers only
 *   check what needs no OpenPGP parsing, price the request, and hand the job over.
 * - CRYPTO_KEY_DIR: the server's key pair (key-files.ts), loaded and checked once here, at app
 *   build; an unusable one stops the start with a ConfigError naming the variable to fix.
 *   /v1/decrypt and /v1/sign use it when the request carries no key.
 * - CRYPTO_KEY_OUT_DIR: /v1/generate also writes the new key there.
 */
import fp from 'fastify-plugin';
import type { FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Counter, Gauge } from 'prom-client';
import { invalidInput } from '@crypto-service/core';
import {
  V1_DEFAULT_CURVE,
  V1_DEFAULT_RSA_BITS,
  V1DecryptRequest,
  V1DecryptResponse,
  V1EncryptRequest,
  V1EncryptResponse,
  V1GenerateRequest,
  V1GenerateResponse,
  V1RevokeRequest,
  V1RevokeResponse,
  V1SignRequest,
  V1SignResponse,
  V1VerifyRequest,
  V1VerifyResponse,
  type V1RsaBits,
} from '@crypto-service/protocol';
import { ConfigError, type Config } from '../config.ts';
import { problemResponses } from '../routes/responses.ts';
import { readServerKeyFile, writeKeyFiles } from './key-files.ts';
import { OpenPgpPool, type WorkerInit } from './openpgp-pool.ts';
import { WorkerStartError } from '../workers/pool.ts';
import type { ServerKeyInfo } from './openpgp-jobs.ts';
import '../route-config.ts';

/**
 * Rate-limit units, on the scale of the /v2 KDF and password routes (10 units for an Argon2id
 * hash), from the mean time of each operation on the reference machine (docs/performance.md).
 */
export const V1_COSTS = {
  /** /v1/generate, ecc: locking the key with a passphrase dominates; also the base of the rsa prices. */
  generate: 10,
  /** /v1/generate, rsa: the base plus the mean generation time in units, rounded. */
  rsa: { 2048: 20, 3072: 40, 4096: 120 } satisfies Record<V1RsaBits, number>,
  /** The other routes: 1 unit, as on /v2 ... */
  base: 1,
  /** ... or 10 when a passphrase is sent: each one means an S2K derivation, as costly as an Argon2id hash. */
  withPassphrase: 10,
} as const;

const SCHEMA_COMMON = { tags: ['openpgp (v1, deprecated)'], deprecated: true } as const;

/** Charges the passphrase surcharge when the request carries any passphrase. */
async function chargePassphrase(reply: FastifyReply, ...passphrases: (string | undefined)[]): Promise<void> {
  if (passphrases.some((value) => value !== undefined))
    await reply.chargeRateLimit(V1_COSTS.withPassphrase - V1_COSTS.base);
}

const asArray = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : typeof value === 'string' ? [value] : value;

export const v1Routes = fp<{ config: Config }>(
  async function v1Routes(fastify, { config }) {
    let init: WorkerInit = { nice: config.heavyWorkNice };
    if (config.keyDir !== undefined) {
      const keyFile = await readServerKeyFile(config.keyDir);
      if (keyFile.tooOpen)
        fastify.log.warn(
          { file: keyFile.file },
          'CRYPTO_KEY_DIR: the server key file is readable by group or others; chmod 600 it',
        );
      init = {
        ...init,
        serverKey: { armored: keyFile.armored, passphrase: config.v1.keyPassphrase, file: keyFile.file },
      };
    }

    const registry = fastify.hasDecorator('metricsRegistry') ? fastify.metricsRegistry : undefined;
    const refused =
      registry === undefined
        ? undefined
        : new Counter({
            name: 'crypto_openpgp_rejected_total',
            help: '/v1 OpenPGP jobs refused with 503 because their queue was full',
            registers: [registry],
          });
    const timedOut =
      registry === undefined
        ? undefined
        : new Counter({
            name: 'crypto_openpgp_timeouts_total',
            help: '/v1 OpenPGP jobs stopped after V1_JOB_TIMEOUT_MS',
            registers: [registry],
          });
    const pool = new OpenPgpPool({
      workers: config.v1.workers,
      queueLimit: config.v1.queueLimit,
      refusalDelayMs: config.busyRefusalDelayMs,
      jobTimeoutMs: config.v1.jobTimeoutMs,
      init,
      onRefused: () => refused?.inc(),
      onTimeout: () => timedOut?.inc(),
    });
    fastify.addHook('onClose', () => pool.close());
    if (registry !== undefined) {
      new Gauge({
        name: 'crypto_openpgp_jobs',
        help: '/v1 OpenPGP jobs by state (running, waiting)',
        labelNames: ['state'] as const,
        registers: [registry],
        collect() {
          this.set({ state: 'running' }, pool.queue.running);
          this.set({ state: 'waiting' }, pool.queue.queued);
        },
      });
    }

    let serverKey: ServerKeyInfo | undefined;
    if (init.serverKey !== undefined) {
      try {
        serverKey = await pool.start();
      } catch (error) {
        await pool.close();
        if (error instanceof WorkerStartError && error.variable !== undefined)
          throw new ConfigError(error.variable, error.message);
        throw error;
      }
      if (serverKey?.passphraseUnused === true)
        fastify.log.warn('CRYPTO_KEY_PASSPHRASE is set, but the key in CRYPTO_KEY_DIR is not locked');
      fastify.log.info(
        { fingerprint: serverKey?.fingerprint },
        '/v1: the server OpenPGP key from CRYPTO_KEY_DIR is loaded',
      );
    }
    const hasServerKey = serverKey !== undefined;
    const noServerKey = 'this server has no key of its own (CRYPTO_KEY_DIR is not set)';

    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/v1/generate',
      {
        config: {
          scope: 'crypto:keys',
          rateLimitCost: V1_COSTS.generate,
          operation: 'v1.generate',
          handlerTimeout: true,
        },
        schema: {
          ...SCHEMA_COMMON,
          summary: 'Generate an OpenPGP key pair (Curve25519 by default, or RSA), with a revocation certificate',
          body: V1GenerateRequest,
          response: { 200: V1GenerateResponse, ...problemResponses },
        },
      },
      async (request, reply) => {
        const { name, email, passphrase, type = 'ecc', curve, rsaBits, keyExpirationTime = 0 } = request.body;
        // A parameter of the other key type is refused rather than ignored (as on /v2/kdf).
        if (type === 'rsa' && curve !== undefined) throw invalidInput('curve applies to type ecc only', '/curve');
        if (type === 'ecc' && rsaBits !== undefined) throw invalidInput('rsaBits applies to type rsa only', '/rsaBits');
        const bits = rsaBits ?? V1_DEFAULT_RSA_BITS;
        if (type === 'rsa') await reply.chargeRateLimit(V1_COSTS.rsa[bits] - V1_COSTS.generate);
        const algorithm = type === 'rsa' ? `rsa-${bits}` : (curve ?? V1_DEFAULT_CURVE);
        const key = await app.operations.run(request, algorithm, () =>
          pool.run({
            op: 'generate',
            name,
            email,
            passphrase,
            type,
            curve: curve ?? V1_DEFAULT_CURVE,
            rsaBits: bits,
            keyExpirationTime,
          }),
        );
        if (config.keyOutDir !== undefined) {
          // A failure here (a full disk, a file in the way) is the server's, not the caller's: a 500,
          // logged, and the key is not handed out either, so no key exists that the directory lacks.
          await writeKeyFiles(config.keyOutDir, key);
        }
        return { data: key };
      },
    );

    app.post(
      '/v1/encrypt',
      {
        config: { scope: 'crypto:encrypt', operation: 'v1.encrypt', handlerTimeout: true },
        schema: {
          ...SCHEMA_COMMON,
          summary: 'Encrypt text to OpenPGP public keys and/or a passphrase, optionally signed',
          body: V1EncryptRequest,
          response: { 200: V1EncryptResponse, ...problemResponses },
        },
      },
      async (request, reply) => {
        const { message, passphrase, signingKey, signingPassphrase } = request.body;
        const publicKeys = asArray(request.body.publicKeys);
        if (publicKeys.length === 0 && passphrase === undefined) {
          throw invalidInput(
            'publicKeys or passphrase is required: publicKeys to encrypt to recipients, passphrase for symmetric encryption',
            '/publicKeys',
          );
        }
        if (signingPassphrase !== undefined && signingKey === undefined) {
          throw invalidInput('signingPassphrase applies to signingKey, which is missing', '/signingPassphrase');
        }
        await chargePassphrase(reply, passphrase, signingPassphrase);
        const armored = await app.operations.run(request, 'openpgp', () =>
          pool.run({
            op: 'encrypt',
            message,
            publicKeys,
            passphrase,
            signingKey,
            signingPassphrase,
          }),
        );
        return { data: armored };
      },
    );

    app.post(
      '/v1/decrypt',
      {
        config: { scope: 'crypto:decrypt', operation: 'v1.decrypt', handlerTimeout: true },
        schema: {
          ...SCHEMA_COMMON,
          summary: "Decrypt an OpenPGP message with a private key, a passphrase, or the server's own key",
          body: V1DecryptRequest,
          response: { 200: V1DecryptResponse, ...problemResponses },
        },
      },
      async (request, reply) => {
        const { message, privateKey, passphrase } = request.body;
        if (privateKey === undefined && passphrase === undefined && !hasServerKey) {
          throw invalidInput(
            `privateKey is required: ${noServerKey}; or send passphrase for a symmetrically encrypted message`,
            '/privateKey',
          );
        }
        await chargePassphrase(reply, passphrase);
        const plaintext = await app.operations.run(request, 'openpgp', () =>
          pool.run({
            op: 'decrypt',
            message,
            privateKey,
            passphrase,
            useServerKey: privateKey === undefined && hasServerKey,
          }),
        );
        return { data: plaintext };
      },
    );

    app.post(
      '/v1/sign',
      {
        config: { scope: 'crypto:sign', operation: 'v1.sign', handlerTimeout: true },
        schema: {
          ...SCHEMA_COMMON,
          summary:
            "Sign text: a cleartext-signed message, or a detached signature; with a private key or the server's own key",
          body: V1SignRequest,
          response: { 200: V1SignResponse, ...problemResponses },
        },
      },
      async (request, reply) => {
        const { message, privateKey, passphrase, detached = false } = request.body;
        if (privateKey === undefined) {
          if (!hasServerKey) throw invalidInput(`privateKey is required: ${noServerKey}`, '/privateKey');
          // The server's key is already unlocked: a passphrase here means the caller meant another key.
          if (passphrase !== undefined)
            throw invalidInput(
              "passphrase applies to privateKey, which is missing (the server's own key needs none)",
              '/passphrase',
            );
        }
        await chargePassphrase(reply, passphrase);
        const signed = await app.operations.run(request, 'openpgp', () =>
          pool.run({ op: 'sign', message, privateKey, passphrase, detached }),
        );
        return { data: signed };
      },
    );

    app.post(
      '/v1/verify',
      {
        config: { scope: 'crypto:verify', operation: 'v1.verify', handlerTimeout: true },
        schema: {
          ...SCHEMA_COMMON,
          summary: 'Verify a signed message, or text with its detached signature, against public keys',
          body: V1VerifyRequest,
          response: { 200: V1VerifyResponse, ...problemResponses },
        },
      },
      async (request) => {
        const { message, signature } = request.body;
        const publicKeys = asArray(request.body.publicKeys);
        const result = await app.operations.run(request, 'openpgp', () =>
          pool.run({ op: 'verify', message, signature, publicKeys }),
        );
        return { data: result };
      },
    );

    app.post(
      '/v1/revoke',
      {
        config: { scope: 'crypto:keys', operation: 'v1.revoke', handlerTimeout: true },
        schema: {
          ...SCHEMA_COMMON,
          summary: 'Revoke an OpenPGP key; returns the revoked public key to publish',
          body: V1RevokeRequest,
          response: { 200: V1RevokeResponse, ...problemResponses },
        },
      },
      async (request, reply) => {
        const { privateKey, passphrase, reason } = request.body;
        await chargePassphrase(reply, passphrase);
        const revoked = await app.operations.run(request, 'openpgp', () =>
          pool.run({ op: 'revoke', privateKey, passphrase, reason }),
        );
        return { data: revoked };
      },
    );
  },
  { name: 'v1-routes', dependencies: ['metrics', 'rate-limit', 'handler-timeout'], encapsulate: true },
);
