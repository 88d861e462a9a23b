/**
 * Key derivation, MACs and passwords: `/v2/kdf`, `/v2/hmac`, `/v2/hmac/verify` and
 * `/v2/password/hash|verify|encrypt|decrypt`.
 *
 * The expensive work (Argon2id, scrypt, PBKDF2) goes through bounded work queues (work-queue.ts):
 * one for Argon2id, shared by the four password routes so that their memory has one server-wide
 * budget, and one for scrypt and PBKDF2, so that a flood of KDF requests cannot delay sign-ins.
 * Every request is checked (and a PHC string or an encrypted header parsed) before it is queued,
 * so a bad request costs nothing and the job's memory is known when it is admitted. When a queue
 * is full the request is a 503 with Retry-After (sent BUSY_REFUSAL_DELAY_MS after the decision;
 * work-queue.ts says why).
 *
 * Rate-limit cost: EXPENSIVE_RATE_LIMIT_COST units for every route that runs Argon2id, scrypt or
 * PBKDF2 (HKDF shares /v2/kdf and so its price), 1 for HMAC. See the constant for why 10.
 *
 * The plugin is wrapped with fastify-plugin so that its queues are visible on the app as
 * `app.derivationQueues` (for metrics and for tests that need a full queue); its routes are the
 * same either way.
 */
import fp from 'fastify-plugin';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Counter, Gauge, type Registry } from 'prom-client';
import {
  ARGON2_DEFAULTS,
  PASSWORD_ALGORITHM_IDS,
  PASSWORD_ENCRYPTION_ALGORITHM,
  argon2MemoryBytes,
  base64ToBytes,
  bytesToBase64,
  bytesToHex,
  computeHmac,
  decodeText,
  decryptWithPassword,
  deriveKey,
  encodeText,
  encryptWithPassword,
  hashPassword,
  hexToBytes,
  isExpensiveKdf,
  parsePasswordEnvelope,
  parsePhc,
  planKdf,
  resolveArgon2Params,
  utf8ToBytes,
  verifyHmac,
  verifyPassword,
  wipe,
} from '@crypto-service/core';
import {
  HmacRequest,
  HmacResponse,
  HmacVerifyRequest,
  HmacVerifyResponse,
  KdfRequest,
  KdfResponse,
  PasswordDecryptRequest,
  PasswordDecryptResponse,
  PasswordEncryptRequest,
  PasswordEncryptResponse,
  PasswordHashRequest,
  PasswordHashResponse,
  PasswordVerifyRequest,
  PasswordVerifyResponse,
} from '@crypto-service/protocol';
import { stillWanted } from '../handler-timeout.ts';
import { KDF_QUEUE_DEFAULTS, PASSWORD_QUEUE_DEFAULTS, WorkQueue, type WorkQueueOptions } from '../work-queue.ts';
import { problemResponses } from './responses.ts';
import '../route-config.ts';

/**
 * Rate-limit units of one Argon2id, scrypt or PBKDF2 request. A SHA-256 request costs the server
 * tens of microseconds; a default Argon2id hash about 0.1 s of a core and 64 MiB, a default scrypt
 * 0.35 s and 128 MiB. 10 units means that one client at the default limit (1000 units a minute)
 * gets at most 100 such operations a minute, 1.7 a second: well under one core, whatever the mix.
 * A higher figure would starve ordinary sign-in bursts behind one NAT address.
 */
export const EXPENSIVE_RATE_LIMIT_COST = 10;

export interface DerivationQueues {
  /** Argon2id: password hash, verify, encrypt, decrypt. */
  password: WorkQueue;
  /** scrypt and PBKDF2. */
  kdf: WorkQueue;
}

export interface DerivationOptions {
  /** Overrides of PASSWORD_QUEUE_DEFAULTS (for example from the environment). */
  passwordQueue?: Partial<WorkQueueOptions>;
  /** Overrides of KDF_QUEUE_DEFAULTS. */
  kdfQueue?: Partial<WorkQueueOptions>;
}

declare module 'fastify' {
  interface FastifyInstance {
    derivationQueues: DerivationQueues;
  }
}

/** Decodes a UTF-8 password field and wipes our copy once `work` has settled. */
async function withPassword<T>(text: string, work: (password: Uint8Array) => Promise<T>): Promise<T> {
  const password = utf8ToBytes(text, '/password');
  try {
    return await work(password);
  } finally {
    wipe(password);
  }
}

/** Queue gauges, read at scrape time; the refusal counter is fed by the queues' hook. */
function registerQueueMetrics(registry: Registry, queues: DerivationQueues): void {
  const all = Object.values(queues);
  new Gauge({
    name: 'crypto_work_queue_jobs',
    help: 'Expensive jobs (Argon2id, scrypt, PBKDF2) by queue and state (running, waiting)',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    collect() {
      for (const queue of all) {
        this.set({ queue: queue.options.name, state: 'running' }, queue.running);
        this.set({ queue: queue.options.name, state: 'waiting' }, queue.queued);
      }
    },
  });
  new Gauge({
    name: 'crypto_work_queue_memory_bytes',
    help: 'Declared memory of the running expensive jobs, by queue',
    labelNames: ['queue'] as const,
    registers: [registry],
    collect() {
      for (const queue of all) this.set({ queue: queue.options.name }, queue.memoryInUse);
    },
  });
}

export const derivationRoutes = fp<DerivationOptions>(async function derivationRoutes(fastify, options) {
  const registry = fastify.hasDecorator('metricsRegistry') ? fastify.metricsRegistry : undefined;
  const refused = registry === undefined ? undefined : new Counter({
    name: 'crypto_work_queue_rejected_total',
    help: 'Expensive jobs refused with 503 because their queue was full, by queue',
    labelNames: ['queue'] as const,
    registers: [registry],
  });
  const dropped = registry === undefined ? undefined : new Counter({
    name: 'crypto_work_queue_dropped_total',
    help: 'Queued jobs dropped before they started because their request had ended (HANDLER_TIMEOUT_MS, or the client left), by queue',
    labelNames: ['queue'] as const,
    registers: [registry],
  });
  const queue = (defaults: Readonly<WorkQueueOptions>, overrides: Partial<WorkQueueOptions> | undefined) => {
    const settings = { ...defaults, ...overrides };
    // Present at 0 from the start, so that a dashboard sees the series before the first refusal.
    refused?.inc({ queue: settings.name }, 0);
    dropped?.inc({ queue: settings.name }, 0);
    return new WorkQueue(settings, {
      onRefused: () => refused?.inc({ queue: settings.name }),
      onDropped: () => dropped?.inc({ queue: settings.name }),
    });
  };
  const queues: DerivationQueues = {
    password: queue(PASSWORD_QUEUE_DEFAULTS, options.passwordQueue),
    kdf: queue(KDF_QUEUE_DEFAULTS, options.kdfQueue),
  };
  fastify.decorate('derivationQueues', queues);
  if (registry !== undefined) registerQueueMetrics(registry, queues);

  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const PASSWORD_HASH = PASSWORD_ALGORITHM_IDS[0];

  app.post('/v2/kdf', {
    config: { scope: 'crypto:kdf', rateLimitCost: EXPENSIVE_RATE_LIMIT_COST },
    schema: {
      tags: ['kdf'],
      summary: 'Derive a key with scrypt, HKDF (SHA-256/384/512) or PBKDF2-HMAC-SHA256',
      body: KdfRequest,
      response: { 200: KdfResponse, ...problemResponses },
    },
  }, async (request, reply) => {
    const { algorithm, password, salt, keyLength, params = {}, encoding = 'utf8' } = request.body;
    const data = await app.operations.run('kdf', algorithm, async () => {
      const secret = decodeText(password, encoding, '/password');
      try {
        const plan = planKdf({
          algorithm,
          password: secret,
          salt: salt === undefined ? undefined : hexToBytes(salt, '/salt'),
          keyLength,
          params: {
            N: params.N,
            r: params.r,
            p: params.p,
            iterations: params.iterations,
            info: params.info === undefined ? undefined : decodeText(params.info, encoding, '/params/info'),
          },
        });
        const key = isExpensiveKdf(plan) ? await queues.kdf.run(plan.memoryBytes, () => deriveKey(plan), stillWanted(reply)) : await deriveKey(plan);
        try {
          const effective = plan.algorithm === 'scrypt' || plan.algorithm === 'pbkdf2-sha256'
            ? plan.params
            : { info: params.info ?? '' };
          return { derivedKey: bytesToHex(key), salt: bytesToHex(plan.salt), algorithm, keyLength: plan.keyLength, params: effective };
        } finally {
          wipe(key);
        }
      } finally {
        wipe(secret);
      }
    });
    return { data };
  });

  app.post('/v2/hmac', {
    config: { scope: 'crypto:mac' },
    schema: {
      tags: ['mac'],
      summary: 'HMAC of data with SHA-2 or SHA-3',
      body: HmacRequest,
      response: { 200: HmacResponse, ...problemResponses },
    },
  }, async (request) => {
    const { algorithm, key, data, encoding = 'utf8' } = request.body;
    const mac = app.operations.run('hmac', algorithm, () => {
      const keyBytes = hexToBytes(key, '/key');
      try {
        return computeHmac(algorithm, keyBytes, decodeText(data, encoding, '/data'));
      } finally {
        wipe(keyBytes);
      }
    });
    return { data: { mac: bytesToHex(mac), algorithm } };
  });

  app.post('/v2/hmac/verify', {
    config: { scope: 'crypto:mac' },
    schema: {
      tags: ['mac'],
      summary: 'Check an HMAC in constant time (full-length MACs only)',
      body: HmacVerifyRequest,
      response: { 200: HmacVerifyResponse, ...problemResponses },
    },
  }, async (request) => {
    const { algorithm, key, data, mac, encoding = 'utf8' } = request.body;
    const valid = app.operations.run('hmac-verify', algorithm, () => {
      const keyBytes = hexToBytes(key, '/key');
      try {
        return verifyHmac(algorithm, keyBytes, decodeText(data, encoding, '/data'), hexToBytes(mac, '/mac'));
      } finally {
        wipe(keyBytes);
      }
    });
    return { data: { valid, algorithm } };
  });

  app.post('/v2/password/hash', {
    config: { scope: 'crypto:kdf', rateLimitCost: EXPENSIVE_RATE_LIMIT_COST },
    schema: {
      tags: ['password'],
      summary: 'Hash a password with Argon2id (PHC string)',
      body: PasswordHashRequest,
      response: { 200: PasswordHashResponse, ...problemResponses },
    },
  }, async (request, reply) => {
    const { password, timeCost, memoryCost, parallelism } = request.body;
    const result = await app.operations.run('password-hash', PASSWORD_HASH, () => withPassword(password, (secret) => {
      const params = resolveArgon2Params({ timeCost, memoryCost, parallelism });
      return queues.password.run(argon2MemoryBytes(params), () => hashPassword(secret, params), stillWanted(reply));
    }));
    return { data: { hash: result.hash, algorithm: PASSWORD_HASH, params: result.params } };
  });

  app.post('/v2/password/verify', {
    config: { scope: 'crypto:kdf', rateLimitCost: EXPENSIVE_RATE_LIMIT_COST },
    schema: {
      tags: ['password'],
      summary: 'Check a password against an Argon2 PHC string',
      body: PasswordVerifyRequest,
      response: { 200: PasswordVerifyResponse, ...problemResponses },
    },
  }, async (request, reply) => {
    const { password, hash } = request.body;
    const data = await app.operations.run('password-verify', PASSWORD_HASH, () => withPassword(password, (secret) => {
      // Parsed first: a malformed or over-cap string is a 400 before any memory is committed.
      const parsed = parsePhc(hash, '/hash');
      return queues.password.run(argon2MemoryBytes(parsed.params), () => verifyPassword(secret, parsed), stillWanted(reply));
    }));
    return { data };
  });

  app.post('/v2/password/encrypt', {
    config: { scope: 'crypto:encrypt', rateLimitCost: EXPENSIVE_RATE_LIMIT_COST },
    schema: {
      tags: ['password'],
      summary: 'Encrypt under a password (Argon2id, then XChaCha20-Poly1305)',
      body: PasswordEncryptRequest,
      response: { 200: PasswordEncryptResponse, ...problemResponses },
    },
  }, async (request, reply) => {
    const { password, plaintext, encoding = 'utf8' } = request.body;
    const blob = await app.operations.run('password-encrypt', PASSWORD_ENCRYPTION_ALGORITHM, () => withPassword(password, (secret) => {
      const data = decodeText(plaintext, encoding, '/plaintext');
      return queues.password.run(argon2MemoryBytes(ARGON2_DEFAULTS), () => encryptWithPassword(secret, data), stillWanted(reply));
    }));
    return { data: { encrypted: bytesToBase64(blob), algorithm: PASSWORD_ENCRYPTION_ALGORITHM } };
  });

  app.post('/v2/password/decrypt', {
    config: { scope: 'crypto:decrypt', rateLimitCost: EXPENSIVE_RATE_LIMIT_COST },
    schema: {
      tags: ['password'],
      summary: 'Decrypt what /v2/password/encrypt made',
      body: PasswordDecryptRequest,
      response: { 200: PasswordDecryptResponse, ...problemResponses },
    },
  }, async (request, reply) => {
    const { password, ciphertext, encoding = 'utf8' } = request.body;
    const text = await app.operations.run('password-decrypt', PASSWORD_ENCRYPTION_ALGORITHM, () => withPassword(password, async (secret) => {
      const blob = base64ToBytes(ciphertext, '/ciphertext');
      // The header says what the decryption costs; a bad header is DECRYPTION_FAILED before any work.
      const header = parsePasswordEnvelope(blob);
      const plaintext = await queues.password.run(argon2MemoryBytes(header.params), () => decryptWithPassword(secret, blob), stillWanted(reply));
      try {
        return encodeText(plaintext, encoding, '/plaintext');
      } finally {
        wipe(plaintext);
      }
    }));
    return { data: text };
  });
}, { name: 'derivation-routes' });
