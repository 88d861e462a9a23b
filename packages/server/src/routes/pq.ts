/**
 * The post-quantum routes: ML-KEM `/v2/pq/keygen|encapsulate|decapsulate`, X-Wing
 * `/v2/pq/hybrid/*`, ML-DSA `/v2/pq/dsa/*`, SLH-DSA `/v2/pq/slh-dsa/*` and the same SLH-DSA routes
 * under the typed client's name, `/v2/pq/hash-sign/*`. Scope `crypto:pq` for all.
 *
 * Every core call goes through the offload (../pq-offload.ts), which keeps the work off the event
 * loop and bounds the queue: a full queue is a 503 with Retry-After (counted as `unavailable`).
 */
import fp from 'fastify-plugin';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { bytesToHex, decodeText, hexToBytes, utf8ToBytes, wipe } from '@crypto-service/core';
import {
  PqDecapsulateRequest,
  PqDecapsulateResponse,
  PqDsaKeygenRequest,
  PqDsaKeygenResponse,
  PqDsaSignRequest,
  PqDsaSignResponse,
  PqDsaVerifyRequest,
  PqDsaVerifyResponse,
  PqEncapsulateRequest,
  PqEncapsulateResponse,
  PqHybridDecapsulateRequest,
  PqHybridDecapsulateResponse,
  PqHybridEncapsulateRequest,
  PqHybridEncapsulateResponse,
  PqHybridKeygenRequest,
  PqHybridKeygenResponse,
  PqKeygenRequest,
  PqKeygenResponse,
  PqSlhDsaKeygenRequest,
  PqSlhDsaKeygenResponse,
  PqSlhDsaSignRequest,
  PqSlhDsaSignResponse,
  PqSlhDsaVerifyRequest,
  PqSlhDsaVerifyResponse,
} from '@crypto-service/protocol';
import { mlKemAlgorithm, mlKemAlgorithmForPublicKey, mlKemAlgorithmForSecretKey } from '@crypto-service/core';
import { mlDsaAlgorithm, mlDsaAlgorithmForPublicKey, mlDsaAlgorithmForSecretKey } from '@crypto-service/core';
import { slhDsaAlgorithm } from '@crypto-service/core';
import { XWING_ALGORITHM } from '@crypto-service/core';
import { chargeHeavyJob } from '../heavy-job.ts';
import { keyGenerationCost, PQ_RATE_LIMIT_COSTS, signingCost } from '../rate-limit/costs.ts';
import { chooseForm } from './key-forms.ts';
import { problemResponses } from './responses.ts';
import '../route-config.ts';
import '../batch.ts';

const TAGS = ['post-quantum'];
const SCOPE = 'crypto:pq' as const;

/** Every core call goes through the app's post-quantum offload (plugins/pq-offload.ts). */
export const pqRoutes = fp(
  async function pqRoutes(fastify) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const offload = fastify.pqOffload;

    // ML-KEM -----------------------------------------------------------------------------------

    app.post(
      '/v2/pq/keygen',
      {
        config: { scope: SCOPE, operation: 'ml-kem.keygen' },
        schema: {
          tags: TAGS,
          summary: 'ML-KEM key pair (FIPS 203); the private key is the 64-byte seed',
          body: PqKeygenRequest,
          response: { 200: PqKeygenResponse, ...problemResponses },
        },
      },
      async (request) => {
        const { algorithm } = request.body;
        const keys = await app.operations.run(request, mlKemAlgorithm(algorithm), () =>
          offload.run('ml-kem.keygen', algorithm),
        );
        try {
          return {
            data: {
              publicKey: bytesToHex(keys.publicKey),
              privateKey: bytesToHex(keys.secretKey),
              algorithm: keys.algorithm,
            },
          };
        } finally {
          wipe(keys.secretKey);
        }
      },
    );

    app.post(
      '/v2/pq/encapsulate',
      {
        config: { scope: SCOPE, operation: 'ml-kem.encapsulate', batch: {} },
        schema: {
          tags: TAGS,
          summary: 'ML-KEM encapsulation to a public key (its length gives the parameter set)',
          body: PqEncapsulateRequest,
          response: { 200: PqEncapsulateResponse, ...problemResponses },
        },
      },
      async (request) => {
        const { algorithm } = request.body;
        const publicKey = hexToBytes(request.body.publicKey, '/publicKey');
        const label = mlKemAlgorithmForPublicKey(publicKey.byteLength) ?? 'ml-kem';
        const result = await app.operations.run(request, label, () =>
          offload.run('ml-kem.encapsulate', publicKey, { algorithm }),
        );
        try {
          return {
            data: {
              ciphertext: bytesToHex(result.ciphertext),
              sharedSecret: bytesToHex(result.sharedSecret),
              algorithm: result.algorithm,
            },
          };
        } finally {
          wipe(result.sharedSecret);
        }
      },
    );

    app.post(
      '/v2/pq/decapsulate',
      {
        config: { scope: SCOPE, operation: 'ml-kem.decapsulate', batch: {} },
        schema: {
          tags: TAGS,
          summary: 'ML-KEM decapsulation with the seed or the expanded key; a sharedSecret sent along is ignored',
          body: PqDecapsulateRequest,
          response: { 200: PqDecapsulateResponse, ...problemResponses },
        },
      },
      async (request) => {
        const { algorithm } = request.body;
        const privateKey = hexToBytes(request.body.privateKey, '/privateKey');
        try {
          const ciphertext = hexToBytes(request.body.ciphertext, '/ciphertext');
          const label = mlKemAlgorithmForSecretKey(privateKey.byteLength, algorithm) ?? 'ml-kem';
          const result = await app.operations.run(request, label, () =>
            offload.run('ml-kem.decapsulate', privateKey, ciphertext, algorithm),
          );
          const sharedSecret = bytesToHex(result.sharedSecret);
          wipe(result.sharedSecret);
          return { data: { sharedSecret, algorithm: result.algorithm } };
        } finally {
          wipe(privateKey);
        }
      },
    );

    // X-Wing -----------------------------------------------------------------------------------

    app.post(
      '/v2/pq/hybrid/keygen',
      {
        config: { scope: SCOPE, operation: 'x-wing.keygen' },
        schema: {
          tags: TAGS,
          summary:
            'X-Wing (X25519 + ML-KEM-768) key pair; the private key is the 32-byte seed; the body may be omitted',
          body: PqHybridKeygenRequest,
          response: { 200: PqHybridKeygenResponse, ...problemResponses },
        },
      },
      async (request) => {
        const keys = await app.operations.run(request, XWING_ALGORITHM, () => offload.run('x-wing.keygen'));
        try {
          return {
            data: {
              publicKey: bytesToHex(keys.publicKey),
              privateKey: bytesToHex(keys.secretKey),
              algorithm: keys.algorithm,
            },
          };
        } finally {
          wipe(keys.secretKey, keys.x25519PrivateKey, keys.mlKemSecretKey);
        }
      },
    );

    app.post(
      '/v2/pq/hybrid/encapsulate',
      {
        config: { scope: SCOPE, operation: 'x-wing.encapsulate' },
        schema: {
          tags: TAGS,
          summary: 'X-Wing encapsulation to publicKey, or to its parts x25519PublicKey + mlKemPublicKey',
          body: PqHybridEncapsulateRequest,
          response: { 200: PqHybridEncapsulateResponse, ...problemResponses },
        },
      },
      async (request) => {
        const body = request.body;
        const form = chooseForm(body, [['publicKey'], ['x25519PublicKey', 'mlKemPublicKey']]);
        let start;
        if (form === 0) {
          const publicKey = hexToBytes(body.publicKey ?? '', '/publicKey');
          start = () => offload.run('x-wing.encapsulate', publicKey);
        } else {
          const x25519PublicKey = hexToBytes(body.x25519PublicKey ?? '', '/x25519PublicKey');
          const mlKemPublicKey = hexToBytes(body.mlKemPublicKey ?? '', '/mlKemPublicKey');
          start = () => offload.run('x-wing.encapsulate-parts', x25519PublicKey, mlKemPublicKey);
        }
        const result = await app.operations.run(request, XWING_ALGORITHM, start);
        try {
          return {
            data: {
              ciphertext: bytesToHex(result.ciphertext),
              sharedSecret: bytesToHex(result.sharedSecret),
              algorithm: result.algorithm,
            },
          };
        } finally {
          wipe(result.sharedSecret);
        }
      },
    );

    app.post(
      '/v2/pq/hybrid/decapsulate',
      {
        config: { scope: SCOPE, operation: 'x-wing.decapsulate' },
        schema: {
          tags: TAGS,
          summary:
            'X-Wing decapsulation of the whole ciphertext with privateKey, or with its parts x25519PrivateKey + mlKemPrivateKey',
          body: PqHybridDecapsulateRequest,
          response: { 200: PqHybridDecapsulateResponse, ...problemResponses },
        },
      },
      async (request) => {
        const body = request.body;
        const form = chooseForm(body, [['privateKey'], ['x25519PrivateKey', 'mlKemPrivateKey']]);
        const secrets: Uint8Array[] = [];
        const secret = (value: string | undefined, field: string) => {
          const bytes = hexToBytes(value ?? '', field);
          secrets.push(bytes);
          return bytes;
        };
        try {
          let start;
          if (form === 0) {
            const privateKey = secret(body.privateKey, '/privateKey');
            const ciphertext = hexToBytes(body.ciphertext, '/ciphertext');
            start = () => offload.run('x-wing.decapsulate', privateKey, ciphertext);
          } else {
            const parts = {
              x25519PrivateKey: secret(body.x25519PrivateKey, '/x25519PrivateKey'),
              mlKemPrivateKey: secret(body.mlKemPrivateKey, '/mlKemPrivateKey'),
            };
            const ciphertext = hexToBytes(body.ciphertext, '/ciphertext');
            start = () => offload.run('x-wing.decapsulate-parts', parts, ciphertext);
          }
          const result = await app.operations.run(request, XWING_ALGORITHM, start);
          const sharedSecret = bytesToHex(result.sharedSecret);
          wipe(result.sharedSecret);
          return { data: { sharedSecret, algorithm: result.algorithm } };
        } finally {
          wipe(...secrets);
        }
      },
    );

    // ML-DSA -----------------------------------------------------------------------------------

    app.post(
      '/v2/pq/dsa/keygen',
      {
        config: {
          scope: SCOPE,
          rateLimitCost: PQ_RATE_LIMIT_COSTS.mlDsaKeygen,
          operation: 'ml-dsa.keygen',
          handlerTimeout: true,
        },
        schema: {
          tags: TAGS,
          summary: 'ML-DSA key pair (FIPS 204); the private key is the 32-byte seed',
          body: PqDsaKeygenRequest,
          response: { 200: PqDsaKeygenResponse, ...problemResponses },
        },
      },
      async (request) => {
        const { algorithm } = request.body;
        const keys = await app.operations.run(request, mlDsaAlgorithm(algorithm), () =>
          offload.run('ml-dsa.keygen', algorithm),
        );
        try {
          return {
            data: {
              publicKey: bytesToHex(keys.publicKey),
              privateKey: bytesToHex(keys.secretKey),
              algorithm: keys.algorithm,
            },
          };
        } finally {
          wipe(keys.secretKey);
        }
      },
    );

    app.post(
      '/v2/pq/dsa/sign',
      {
        config: {
          scope: SCOPE,
          rateLimitCost: PQ_RATE_LIMIT_COSTS.mlDsaSign,
          operation: 'ml-dsa.sign',
          handlerTimeout: true,
          batch: {},
        },
        schema: {
          tags: TAGS,
          summary: 'ML-DSA signature (hedged), with an optional context',
          body: PqDsaSignRequest,
          response: { 200: PqDsaSignResponse, ...problemResponses },
        },
      },
      async (request) => {
        const { algorithm, encoding = 'utf8' } = request.body;
        const privateKey = hexToBytes(request.body.privateKey, '/privateKey');
        try {
          const message = decodeText(request.body.message, encoding, '/message');
          const context =
            request.body.context === undefined ? undefined : utf8ToBytes(request.body.context, '/context');
          const label = mlDsaAlgorithmForSecretKey(privateKey.byteLength, algorithm) ?? 'ml-dsa';
          const result = await app.operations.run(request, label, () =>
            offload.run('ml-dsa.sign', privateKey, message, { algorithm, context }),
          );
          return { data: { signature: bytesToHex(result.signature), algorithm: result.algorithm } };
        } finally {
          wipe(privateKey);
        }
      },
    );

    app.post(
      '/v2/pq/dsa/verify',
      {
        config: { scope: SCOPE, operation: 'ml-dsa.verify', handlerTimeout: true, batch: {} },
        schema: {
          tags: TAGS,
          summary: 'ML-DSA verification; a signature that does not verify is valid: false',
          body: PqDsaVerifyRequest,
          response: { 200: PqDsaVerifyResponse, ...problemResponses },
        },
      },
      async (request) => {
        const { algorithm, encoding = 'utf8' } = request.body;
        const publicKey = hexToBytes(request.body.publicKey, '/publicKey');
        const message = decodeText(request.body.message, encoding, '/message');
        const signature = hexToBytes(request.body.signature, '/signature');
        const context = request.body.context === undefined ? undefined : utf8ToBytes(request.body.context, '/context');
        const label = mlDsaAlgorithmForPublicKey(publicKey.byteLength, algorithm) ?? 'ml-dsa';
        const result = await app.operations.run(request, label, () =>
          offload.run('ml-dsa.verify', publicKey, message, signature, { algorithm, context }),
        );
        return { data: { valid: result.valid, algorithm: result.algorithm } };
      },
    );

    // SLH-DSA, under both names ------------------------------------------------------------------

    for (const prefix of ['/v2/pq/slh-dsa', '/v2/pq/hash-sign']) {
      const alias = prefix === '/v2/pq/hash-sign' ? " (the typed client's name for /v2/pq/slh-dsa)" : '';

      app.post(
        `${prefix}/keygen`,
        {
          config: {
            scope: SCOPE,
            rateLimitCost: PQ_RATE_LIMIT_COSTS.slhDsaKeygen,
            operation: 'slh-dsa.keygen',
            handlerTimeout: true,
          },
          schema: {
            tags: TAGS,
            summary: `SLH-DSA key pair (FIPS 205)${alias}`,
            body: PqSlhDsaKeygenRequest,
            response: { 200: PqSlhDsaKeygenResponse, ...problemResponses },
          },
        },
        async (request, reply) => {
          const { algorithm } = request.body;
          const job = await chargeHeavyJob(reply, keyGenerationCost(slhDsaAlgorithm(algorithm)));
          const keys = await app.operations.run(request, slhDsaAlgorithm(algorithm), () =>
            offload.runWhile(job, 'slh-dsa.keygen', algorithm),
          );
          try {
            return {
              data: {
                publicKey: bytesToHex(keys.publicKey),
                privateKey: bytesToHex(keys.secretKey),
                algorithm: keys.algorithm,
              },
            };
          } finally {
            wipe(keys.secretKey);
          }
        },
      );

      app.post(
        `${prefix}/sign`,
        {
          config: {
            scope: SCOPE,
            rateLimitCost: PQ_RATE_LIMIT_COSTS.slhDsaSign,
            operation: 'slh-dsa.sign',
            handlerTimeout: true,
          },
          schema: {
            tags: TAGS,
            summary: `SLH-DSA signature (hedged), with an optional context${alias}`,
            body: PqSlhDsaSignRequest,
            response: { 200: PqSlhDsaSignResponse, ...problemResponses },
          },
        },
        async (request, reply) => {
          const { encoding = 'utf8' } = request.body;
          const privateKey = hexToBytes(request.body.privateKey, '/privateKey');
          try {
            const message = decodeText(request.body.message, encoding, '/message');
            const context =
              request.body.context === undefined ? undefined : utf8ToBytes(request.body.context, '/context');
            const algorithm = slhDsaAlgorithm(request.body.algorithm);
            const job = await chargeHeavyJob(reply, signingCost(algorithm));
            const result = await app.operations.run(request, algorithm, () =>
              offload.runWhile(job, 'slh-dsa.sign', privateKey, message, { algorithm, context }),
            );
            return { data: { signature: bytesToHex(result.signature), algorithm: result.algorithm } };
          } finally {
            wipe(privateKey);
          }
        },
      );

      app.post(
        `${prefix}/verify`,
        {
          config: { scope: SCOPE, operation: 'slh-dsa.verify', handlerTimeout: true },
          schema: {
            tags: TAGS,
            summary: `SLH-DSA verification; a signature that does not verify is valid: false${alias}`,
            body: PqSlhDsaVerifyRequest,
            response: { 200: PqSlhDsaVerifyResponse, ...problemResponses },
          },
        },
        async (request) => {
          const { encoding = 'utf8' } = request.body;
          const publicKey = hexToBytes(request.body.publicKey, '/publicKey');
          const message = decodeText(request.body.message, encoding, '/message');
          const signature = hexToBytes(request.body.signature, '/signature');
          const context =
            request.body.context === undefined ? undefined : utf8ToBytes(request.body.context, '/context');
          const algorithm = slhDsaAlgorithm(request.body.algorithm);
          const result = await app.operations.run(request, algorithm, () =>
            offload.run('slh-dsa.verify', publicKey, message, signature, { algorithm, context }),
          );
          return { data: { valid: result.valid, algorithm: result.algorithm } };
        },
      );
    }
  },
  { name: 'pq-routes', dependencies: ['metrics', 'pq-offload', 'handler-timeout'], encapsulate: true },
);
