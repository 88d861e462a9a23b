import fp from 'fastify-plugin';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  bytesToHex,
  decodeKeyField,
  decodeText,
  generateKeyMaterial,
  hexToBytes,
  signMessage,
  utf8ToBytes,
  verifySignature,
  wipe,
  type EncodedKey,
  type KeyInput,
} from '@crypto-service/core';
import {
  KeyGenerateRequest,
  KeyGenerateResponse,
  SignRequest,
  SignResponse,
  VerifyRequest,
  VerifyResponse,
} from '@crypto-service/protocol';
import { keyGenerationCost, signingCost } from '../rate-limit/costs.ts';
import { chargeHeavyJob } from '../heavy-job.ts';
import { requireScopeForAlgorithm } from '../auth/require-scope.ts';
import { problemResponses } from './responses.ts';
import '../route-config.ts';
import { pricedBy } from '../batch.ts';

/** Raw keys leave as hex; PEM text and JWK objects as they are. */
function encodeKey(key: EncodedKey): string | Exclude<EncodedKey, Uint8Array | string> {
  return key instanceof Uint8Array ? bytesToHex(key) : key;
}

function contextBytes(context: string | undefined): Uint8Array | undefined {
  return context === undefined ? undefined : utf8ToBytes(context, '/context');
}

/** Raw private-key bytes decoded from this request are ours to wipe; PEM text is an immutable string. */
function wipeKey(key: KeyInput): void {
  if (key instanceof Uint8Array) wipe(key);
}

/**
 * `POST /v2/sign`, `POST /v2/verify` and `POST /v2/keys/generate`: decode, call core, encode.
 * Core runs ML-DSA and SLH-DSA (and post-quantum key generation) through the app's post-quantum
 * offload (`runner`), so that pure JavaScript stays off the event loop on Node 22 and expensive
 * work is queued and bounded as on the `/v2/pq` routes; these routes charge the same rate-limit
 * units as those (rate-limit/costs.ts) once the body names the algorithm, and a post-quantum
 * algorithm needs `crypto:pq` here too.
 */
export const signatureRoutes = fp(
  async function signatureRoutes(fastify) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/v2/sign',
      {
        config: {
          scope: 'crypto:sign',
          operation: 'signature.sign',
          handlerTimeout: true,
          batch: pricedBy<SignRequest>((item) => signingCost(item.algorithm ?? 'ed25519')),
        },
        schema: {
          tags: ['signatures'],
          summary: 'Sign a message with Ed25519 (default), Ed448, ECDSA P-256 / P-384, ML-DSA or SLH-DSA',
          body: SignRequest,
          response: { 200: SignResponse, ...problemResponses },
        },
      },
      async (request, reply) => {
        const { algorithm = 'ed25519', privateKey, message, context, encoding = 'utf8' } = request.body;
        requireScopeForAlgorithm(request, algorithm);
        const job = await chargeHeavyJob(reply, signingCost(algorithm));
        const signature = await app.operations.run(request, algorithm, async () => {
          const key = decodeKeyField(privateKey, '/privateKey');
          try {
            return await signMessage(algorithm, key, decodeText(message, encoding, '/message'), {
              context: contextBytes(context),
              runner: app.pqOffload.runnerWhile(job),
              keys: request.privateKeys,
            });
          } finally {
            wipeKey(key);
          }
        });
        return { data: { signature: bytesToHex(signature), algorithm } };
      },
    );

    app.post(
      '/v2/verify',
      {
        config: { scope: 'crypto:verify', operation: 'signature.verify', handlerTimeout: true, batch: {} },
        schema: {
          tags: ['signatures'],
          summary: 'Verify a signature; a signature that does not verify is valid: false, not an error',
          body: VerifyRequest,
          response: { 200: VerifyResponse, ...problemResponses },
        },
      },
      async (request, reply) => {
        const { algorithm = 'ed25519', publicKey, message, signature, context, encoding = 'utf8' } = request.body;
        requireScopeForAlgorithm(request, algorithm);
        const job = await chargeHeavyJob(reply, 1);
        const valid = await app.operations.run(request, algorithm, () =>
          verifySignature(
            algorithm,
            decodeKeyField(publicKey, '/publicKey'),
            decodeText(message, encoding, '/message'),
            hexToBytes(signature, '/signature'),
            { context: contextBytes(context), runner: app.pqOffload.runnerWhile(job) },
          ),
        );
        return { data: { valid, algorithm } };
      },
    );

    app.post(
      '/v2/keys/generate',
      {
        config: { scope: 'crypto:keys', operation: 'keys.generate', handlerTimeout: true },
        schema: {
          tags: ['keys'],
          summary:
            'Generate a key pair (signature, key agreement, KEM, post-quantum) or a symmetric key, as raw hex, PEM or JWK',
          body: KeyGenerateRequest,
          response: { 200: KeyGenerateResponse, ...problemResponses },
        },
      },
      async (request, reply) => {
        const { algorithm = 'ed25519', format = 'raw' } = request.body;
        requireScopeForAlgorithm(request, algorithm);
        const job = await chargeHeavyJob(reply, keyGenerationCost(algorithm));
        const generated = await app.operations.run(request, algorithm, () =>
          generateKeyMaterial(algorithm, format, { runner: app.pqOffload.runnerWhile(job) }),
        );
        if (generated.kind === 'secret') {
          return { data: { algorithm, format, key: encodeKey(generated.key) } };
        }
        try {
          return {
            data: {
              algorithm,
              format,
              publicKey: encodeKey(generated.publicKey),
              privateKey: encodeKey(generated.privateKey),
            },
          };
        } finally {
          // The hex copies are the response's; these bytes are ours.
          if (generated.privateKey instanceof Uint8Array) wipe(generated.privateKey);
        }
      },
    );
  },
  {
    name: 'signature-routes',
    dependencies: ['metrics', 'rate-limit', 'pq-offload', 'handler-timeout'],
    encapsulate: true,
  },
);
