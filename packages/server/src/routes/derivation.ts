/**
 * Key derivation, MACs and passwords: `/v2/kdf`, `/v2/hmac`, `/v2/hmac/verify` and
 * `/v2/password/hash|verify|encrypt|decrypt`.
 *
 * The expensive work (Argon2id, scrypt, PBKDF2) goes through the app's bounded work queues
 * (plugins/work-queues.ts): one for Argon2id, one for scrypt and PBKDF2.
 * Every request is checked (and a PHC string or an encrypted header parsed) before it is queued,
 * so a bad request costs nothing and the job's memory is known when it is admitted. When a queue
 * is full the request is a 503 with Retry-After (sent BUSY_REFUSAL_DELAY_MS after the decision;
 * work-queue.ts says why).
 *
 * Rate-limit cost: in proportion to the work the parameters ask (rate-limit/costs.ts), charged once
 * they are known and before any work (for /v2/password/verify, from the PHC string); 1 for HMAC
 * and HKDF. Each job waits its client's turn in its queue (heavy-job.ts).
 */
import fp from 'fastify-plugin';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
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
import { chargeHeavyJob } from '../heavy-job.ts';
import { argon2Cost, kdfCost } from '../rate-limit/costs.ts';
import { problemResponses } from './responses.ts';
import '../route-config.ts';
import '../batch.ts';

/** Decodes a UTF-8 password field and wipes our copy once `work` has settled. */
async function withPassword<T>(text: string, work: (password: Uint8Array) => Promise<T>): Promise<T> {
  const password = utf8ToBytes(text, '/password');
  try {
    return await work(password);
  } finally {
    wipe(password);
  }
}

export const derivationRoutes = fp(
  async function derivationRoutes(fastify) {
    const queues = fastify.workQueues;
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const PASSWORD_HASH = PASSWORD_ALGORITHM_IDS[0];

    app.post(
      '/v2/kdf',
      {
        config: {
          scope: 'crypto:kdf',
          operation: 'kdf.derive',
          handlerTimeout: true,
        },
        schema: {
          tags: ['kdf'],
          summary: 'Derive a key with scrypt, HKDF (SHA-256/384/512) or PBKDF2-HMAC-SHA256',
          body: KdfRequest,
          response: { 200: KdfResponse, ...problemResponses },
        },
      },
      async (request, reply) => {
        const { algorithm, password, salt, keyLength, params = {}, encoding = 'utf8' } = request.body;
        const data = await app.operations.run(request, algorithm, async () => {
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
            const terms = await chargeHeavyJob(reply, kdfCost(plan));
            const key = isExpensiveKdf(plan)
              ? await queues.kdf.run(plan.memoryBytes, () => deriveKey(plan), terms)
              : await deriveKey(plan);
            try {
              const effective =
                plan.algorithm === 'scrypt' || plan.algorithm === 'pbkdf2-sha256'
                  ? plan.params
                  : { info: params.info ?? '' };
              return {
                derivedKey: bytesToHex(key),
                salt: bytesToHex(plan.salt),
                algorithm,
                keyLength: plan.keyLength,
                params: effective,
              };
            } finally {
              wipe(key);
            }
          } finally {
            wipe(secret);
          }
        });
        return { data };
      },
    );

    app.post(
      '/v2/hmac',
      {
        config: { scope: 'crypto:mac', operation: 'hmac.compute', batch: {} },
        schema: {
          tags: ['mac'],
          summary: 'HMAC of data with SHA-2 or SHA-3',
          body: HmacRequest,
          response: { 200: HmacResponse, ...problemResponses },
        },
      },
      async (request) => {
        const { algorithm, key, data, encoding = 'utf8' } = request.body;
        const mac = app.operations.run(request, algorithm, () => {
          const keyBytes = hexToBytes(key, '/key');
          try {
            return computeHmac(algorithm, keyBytes, decodeText(data, encoding, '/data'));
          } finally {
            wipe(keyBytes);
          }
        });
        return { data: { mac: bytesToHex(mac), algorithm } };
      },
    );

    app.post(
      '/v2/hmac/verify',
      {
        config: { scope: 'crypto:mac', operation: 'hmac.verify', batch: {} },
        schema: {
          tags: ['mac'],
          summary: 'Check an HMAC in constant time (full-length MACs only)',
          body: HmacVerifyRequest,
          response: { 200: HmacVerifyResponse, ...problemResponses },
        },
      },
      async (request) => {
        const { algorithm, key, data, mac, encoding = 'utf8' } = request.body;
        const valid = app.operations.run(request, algorithm, () => {
          const keyBytes = hexToBytes(key, '/key');
          try {
            return verifyHmac(algorithm, keyBytes, decodeText(data, encoding, '/data'), hexToBytes(mac, '/mac'));
          } finally {
            wipe(keyBytes);
          }
        });
        return { data: { valid, algorithm } };
      },
    );

    app.post(
      '/v2/password/hash',
      {
        config: {
          scope: 'crypto:kdf',
          operation: 'password.hash',
          handlerTimeout: true,
        },
        schema: {
          tags: ['password'],
          summary: 'Hash a password with Argon2id (PHC string)',
          body: PasswordHashRequest,
          response: { 200: PasswordHashResponse, ...problemResponses },
        },
      },
      async (request, reply) => {
        const { password, timeCost, memoryCost, parallelism } = request.body;
        const result = await app.operations.run(request, PASSWORD_HASH, () =>
          withPassword(password, async (secret) => {
            const params = resolveArgon2Params({ timeCost, memoryCost, parallelism });
            const terms = await chargeHeavyJob(reply, argon2Cost(params));
            return queues.password.run(argon2MemoryBytes(params), () => hashPassword(secret, params), terms);
          }),
        );
        return { data: { hash: result.hash, algorithm: PASSWORD_HASH, params: result.params } };
      },
    );

    app.post(
      '/v2/password/verify',
      {
        config: {
          scope: 'crypto:kdf',
          operation: 'password.verify',
          handlerTimeout: true,
        },
        schema: {
          tags: ['password'],
          summary: 'Check a password against an Argon2 PHC string',
          body: PasswordVerifyRequest,
          response: { 200: PasswordVerifyResponse, ...problemResponses },
        },
      },
      async (request, reply) => {
        const { password, hash } = request.body;
        const data = await app.operations.run(request, PASSWORD_HASH, () =>
          withPassword(password, async (secret) => {
            // Parsed first: a malformed or over-cap string is a 400 before any memory is committed,
            // and a well-formed one is charged what its parameters cost before any work.
            const parsed = parsePhc(hash, '/hash');
            const terms = await chargeHeavyJob(reply, argon2Cost(parsed.params));
            return queues.password.run(argon2MemoryBytes(parsed.params), () => verifyPassword(secret, parsed), terms);
          }),
        );
        return { data };
      },
    );

    app.post(
      '/v2/password/encrypt',
      {
        config: {
          scope: 'crypto:encrypt',
          operation: 'password.encrypt',
          handlerTimeout: true,
        },
        schema: {
          tags: ['password'],
          summary: 'Encrypt under a password (Argon2id, then XChaCha20-Poly1305)',
          body: PasswordEncryptRequest,
          response: { 200: PasswordEncryptResponse, ...problemResponses },
        },
      },
      async (request, reply) => {
        const { password, plaintext, encoding = 'utf8' } = request.body;
        const blob = await app.operations.run(request, PASSWORD_ENCRYPTION_ALGORITHM, () =>
          withPassword(password, async (secret) => {
            const data = decodeText(plaintext, encoding, '/plaintext');
            const terms = await chargeHeavyJob(reply, argon2Cost(ARGON2_DEFAULTS));
            return queues.password.run(
              argon2MemoryBytes(ARGON2_DEFAULTS),
              () => encryptWithPassword(secret, data),
              terms,
            );
          }),
        );
        return { data: { ciphertext: bytesToBase64(blob), algorithm: PASSWORD_ENCRYPTION_ALGORITHM } };
      },
    );

    app.post(
      '/v2/password/decrypt',
      {
        config: {
          scope: 'crypto:decrypt',
          operation: 'password.decrypt',
          handlerTimeout: true,
        },
        schema: {
          tags: ['password'],
          summary: 'Decrypt what /v2/password/encrypt made',
          body: PasswordDecryptRequest,
          response: { 200: PasswordDecryptResponse, ...problemResponses },
        },
      },
      async (request, reply) => {
        const { password, ciphertext, encoding = 'utf8' } = request.body;
        const text = await app.operations.run(request, PASSWORD_ENCRYPTION_ALGORITHM, () =>
          withPassword(password, async (secret) => {
            const blob = base64ToBytes(ciphertext, '/ciphertext');
            // The header says what the decryption costs; a bad header is DECRYPTION_FAILED before any work.
            const header = parsePasswordEnvelope(blob);
            const terms = await chargeHeavyJob(reply, argon2Cost(header.params));
            const plaintext = await queues.password.run(
              argon2MemoryBytes(header.params),
              () => decryptWithPassword(secret, blob),
              terms,
            );
            try {
              return encodeText(plaintext, encoding, '/plaintext');
            } finally {
              wipe(plaintext);
            }
          }),
        );
        return { data: text };
      },
    );
  },
  { name: 'derivation-routes', dependencies: ['metrics', 'work-queues', 'handler-timeout'], encapsulate: true },
);
