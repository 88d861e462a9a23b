import fp from 'fastify-plugin';
import type { FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  base64ToBytes,
  bytesToBase64,
  decodeText,
  encodeText,
  hexToBytes,
  MULTI_RECIPIENT_ALGORITHM,
  multiRecipientDecrypt,
  multiRecipientEncrypt,
  wipe,
  type RecipientCredential,
  type RecipientPublicKey,
} from '@crypto-service/core';
import {
  MultiRecipientDecryptRequest,
  MultiRecipientDecryptResponse,
  MultiRecipientEncryptRequest,
  MultiRecipientEncryptResponse,
} from '@crypto-service/protocol';
import { requirePostQuantumScope } from '../auth/require-scope.ts';
import { chargeUpTo, isHybridRecipient, multiRecipientCost } from '../rate-limit/costs.ts';
import { chooseForm } from './key-forms.ts';
import { problemResponses } from './responses.ts';
import '../route-config.ts';

/**
 * `POST /v2/multi-recipient/encrypt` and `/decrypt`: decode, call core, encode. X-Wing slots run
 * on the event loop, as on /v2/pq/hybrid/*, in pieces between which core yields (multi-recipient.ts).
 * Both are charged by their slots (rate-limit/costs.ts), and a hybrid slot or key needs `crypto:pq`.
 */

/** Charges a request of these slots, after checking that the credential may touch hybrid ones. */
async function admitSlots(
  reply: FastifyReply,
  slots: readonly Parameters<typeof isHybridRecipient>[0][],
  hybridKey: boolean,
): Promise<void> {
  const hybrid = slots.filter((slot) => isHybridRecipient(slot)).length;
  if (hybrid > 0 || hybridKey) requirePostQuantumScope(reply.request, 'an x25519-ml-kem-768 recipient');
  await chargeUpTo(reply, multiRecipientCost(slots.length - hybrid, hybrid));
}
export const multiRecipientRoutes = fp(
  async function multiRecipientRoutes(fastify) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/v2/multi-recipient/encrypt',
      {
        config: { scope: 'crypto:encrypt', operation: 'multi-recipient.encrypt', handlerTimeout: true },
        schema: {
          tags: ['multi-recipient'],
          summary: 'Encrypt once for 1 to 100 recipients (HPKE slots around an XChaCha20-Poly1305 payload)',
          body: MultiRecipientEncryptRequest,
          response: { 200: MultiRecipientEncryptResponse, ...problemResponses },
        },
      },
      async (request, reply) => {
        const { plaintext, recipients, encoding = 'utf8' } = request.body;
        await admitSlots(reply, recipients, false);
        // Decoding runs inside operations.run, so that a refused key counts as a rejected operation.
        const envelope = await app.operations.run(request, MULTI_RECIPIENT_ALGORITHM, async () => {
          const keys = recipients.map((recipient, index): RecipientPublicKey => {
            const at = `/recipients/${index}`;
            const form = chooseForm(recipient, [['publicKey'], ['x25519PublicKey', 'mlKemPublicKey']], at);
            return form === 0
              ? { type: recipient.type, publicKey: hexToBytes(recipient.publicKey ?? '', `${at}/publicKey`) }
              : {
                  type: recipient.type,
                  x25519PublicKey: hexToBytes(recipient.x25519PublicKey ?? '', `${at}/x25519PublicKey`),
                  mlKemPublicKey: hexToBytes(recipient.mlKemPublicKey ?? '', `${at}/mlKemPublicKey`),
                };
          });
          const data = decodeText(plaintext, encoding, '/plaintext');
          try {
            return await multiRecipientEncrypt(data, keys);
          } finally {
            wipe(data);
          }
        });
        return {
          data: {
            ciphertext: bytesToBase64(envelope.ciphertext),
            recipients: envelope.recipients.map((slot) => ({
              type: slot.type,
              enc: bytesToBase64(slot.enc),
              wrappedKey: bytesToBase64(slot.wrappedKey),
            })),
            algorithm: envelope.algorithm,
          },
        };
      },
    );

    app.post(
      '/v2/multi-recipient/decrypt',
      {
        config: { scope: 'crypto:decrypt', operation: 'multi-recipient.decrypt', handlerTimeout: true },
        schema: {
          tags: ['multi-recipient'],
          summary:
            "Decrypt a multi-recipient envelope with one recipient's privateKey (either slot type), or a hybrid key's parts x25519PrivateKey + mlKemPrivateKey",
          body: MultiRecipientDecryptRequest,
          response: { 200: MultiRecipientDecryptResponse, ...problemResponses },
        },
      },
      async (request, reply) => {
        const { ciphertext, recipients, encoding = 'utf8' } = request.body;
        const body = request.body;
        await admitSlots(reply, recipients, body.mlKemPrivateKey !== undefined);
        const plaintext = await app.operations.run(request, MULTI_RECIPIENT_ALGORITHM, async () => {
          const form = chooseForm(body, [['privateKey'], ['x25519PrivateKey', 'mlKemPrivateKey']]);
          const envelope = {
            ciphertext: base64ToBytes(ciphertext, '/ciphertext'),
            recipients: recipients.map((slot, index) => ({
              type: slot.type,
              enc: base64ToBytes(slot.enc, `/recipients/${index}/enc`),
              wrappedKey: base64ToBytes(slot.wrappedKey, `/recipients/${index}/wrappedKey`),
            })),
          };
          const secrets: Uint8Array[] = [];
          const secret = (value: string | undefined, field: string) => {
            const bytes = hexToBytes(value ?? '', field);
            secrets.push(bytes);
            return bytes;
          };
          try {
            const credential: RecipientCredential =
              form === 0
                ? { privateKey: secret(body.privateKey, '/privateKey') }
                : {
                    x25519PrivateKey: secret(body.x25519PrivateKey, '/x25519PrivateKey'),
                    mlKemPrivateKey: secret(body.mlKemPrivateKey, '/mlKemPrivateKey'),
                  };
            return await multiRecipientDecrypt(envelope, credential);
          } finally {
            wipe(...secrets);
          }
        });
        try {
          return { data: encodeText(plaintext, encoding, '/plaintext') };
        } finally {
          wipe(plaintext);
        }
      },
    );
  },
  { name: 'multi-recipient-routes', dependencies: ['metrics', 'handler-timeout'], encapsulate: true },
);
