import fp from 'fastify-plugin';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import {
  AEAD_ALGORITHM_IDS,
  PQ_SEALED_BOX,
  X25519_SEALED_BOX,
  base64ToBytes,
  bytesToBase64,
  bytesToHex,
  decodeText,
  encodeText,
  hexToBytes,
  openBox,
  openBoxPq,
  sealBox,
  sealBoxPq,
  unwrapKey,
  wipe,
  wrapKey,
  xchachaOpen,
  xchachaSeal,
  type TextEncoding,
} from '@crypto-service/core';
import {
  DecryptRequest,
  DecryptResponse,
  EncryptRequest,
  EncryptResponse,
  KeyUnwrapRequest,
  KeyUnwrapResponse,
  KeyWrapRequest,
  KeyWrapResponse,
  SealedBoxOpenPqRequest,
  SealedBoxOpenPqResponse,
  SealedBoxOpenRequest,
  SealedBoxOpenResponse,
  SealedBoxSealPqRequest,
  SealedBoxSealPqResponse,
  SealedBoxSealRequest,
  SealedBoxSealResponse,
  SecretboxOpenRequest,
  SecretboxOpenResponse,
  SecretboxSealRequest,
  SecretboxSealResponse,
} from '@crypto-service/protocol';
import { requirePostQuantumScope } from '../auth/require-scope.ts';
import { chooseForm } from './key-forms.ts';
import { problemResponses } from './responses.ts';
import '../route-config.ts';
import '../batch.ts';

// XChaCha20-Poly1305 is the one AEAD; the sealed box of these routes is the classical one.
const AEAD = AEAD_ALGORITHM_IDS[0];
const SEALED_BOX = X25519_SEALED_BOX;

/** Decodes a hex secret, hands it to `work`, and zeroes our copy afterwards. */
function withHexSecret<T>(hex: string, field: string, work: (secret: Uint8Array) => T): T {
  const secret = hexToBytes(hex, field);
  try {
    return work(secret);
  } finally {
    wipe(secret);
  }
}

/** `aad` is written in the same `encoding` as the plaintext, on both sides (see protocol/src/aead.ts). */
function decodeAad(aad: string | undefined, encoding: TextEncoding): Uint8Array | undefined {
  return aad === undefined ? undefined : decodeText(aad, encoding, '/aad');
}

/** Returns the recovered plaintext in the caller's `encoding`; non-UTF-8 asked for as utf8 is a 400. */
function encodePlaintext(plaintext: Uint8Array, encoding: TextEncoding): string {
  try {
    return encodeText(plaintext, encoding, '/plaintext');
  } finally {
    wipe(plaintext);
  }
}

/**
 * The symmetric family: XChaCha20-Poly1305 (`/v2/encrypt`, `/v2/decrypt`, `/v2/secretbox/*`),
 * libsodium sealed boxes (`/v2/sealedbox/seal|open`), the post-quantum sealed box (HPKE with
 * X-Wing, `/v2/sealedbox/seal-pq|open-pq`) and AES key wrap (`/v2/keys/wrap|unwrap`).
 * Each handler decodes, calls core, and encodes; every open or unwrap failure is core's one
 * DECRYPTION_FAILED.
 */
export const symmetricRoutes = fp(
  async function symmetricRoutes(fastify) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

    // /v2/encrypt and /v2/secretbox/seal (and their opening routes) are one format under two names.
    const seal = (request: FastifyRequest, { key, plaintext, aad, encoding = 'utf8' }: EncryptRequest) => {
      const sealed = app.operations.run(request, AEAD, () =>
        withHexSecret(key, '/key', (keyBytes) =>
          xchachaSeal(keyBytes, decodeText(plaintext, encoding, '/plaintext'), decodeAad(aad, encoding)),
        ),
      );
      return { data: { ciphertext: bytesToBase64(sealed), algorithm: AEAD } };
    };
    const open = (request: FastifyRequest, { key, ciphertext, aad, encoding = 'utf8' }: DecryptRequest) => {
      const data = app.operations.run(request, AEAD, () => {
        const sealed = base64ToBytes(ciphertext, '/ciphertext');
        const additional = decodeAad(aad, encoding);
        return encodePlaintext(
          withHexSecret(key, '/key', (keyBytes) => xchachaOpen(keyBytes, sealed, additional)),
          encoding,
        );
      });
      return { data };
    };

    app.post(
      '/v2/encrypt',
      {
        config: { scope: 'crypto:encrypt', operation: 'aead.encrypt', batch: {} },
        schema: {
          tags: ['aead'],
          summary: 'Encrypt with XChaCha20-Poly1305 under a 32-byte key (random nonce, prepended)',
          body: EncryptRequest,
          response: { 200: EncryptResponse, ...problemResponses },
        },
      },
      async (request) => seal(request, request.body),
    );

    app.post(
      '/v2/decrypt',
      {
        config: { scope: 'crypto:decrypt', operation: 'aead.decrypt', batch: {} },
        schema: {
          tags: ['aead'],
          summary: 'Decrypt the output of /v2/encrypt',
          body: DecryptRequest,
          response: { 200: DecryptResponse, ...problemResponses },
        },
      },
      async (request) => open(request, request.body),
    );

    app.post(
      '/v2/secretbox/seal',
      {
        config: { scope: 'crypto:encrypt', operation: 'secretbox.seal', batch: {} },
        schema: {
          tags: ['aead'],
          summary: 'Seal with XChaCha20-Poly1305 under a 32-byte key (the /v2/encrypt format)',
          body: SecretboxSealRequest,
          response: { 200: SecretboxSealResponse, ...problemResponses },
        },
      },
      async (request) => seal(request, request.body),
    );

    app.post(
      '/v2/secretbox/open',
      {
        config: { scope: 'crypto:decrypt', operation: 'secretbox.open', batch: {} },
        schema: {
          tags: ['aead'],
          summary: 'Open the output of /v2/secretbox/seal',
          body: SecretboxOpenRequest,
          response: { 200: SecretboxOpenResponse, ...problemResponses },
        },
      },
      async (request) => open(request, request.body),
    );

    app.post(
      '/v2/sealedbox/seal',
      {
        config: { scope: 'crypto:encrypt', operation: 'sealedbox.seal', batch: {} },
        schema: {
          tags: ['sealed-box'],
          summary: 'Seal to an X25519 public key (libsodium crypto_box_seal)',
          body: SealedBoxSealRequest,
          response: { 200: SealedBoxSealResponse, ...problemResponses },
        },
      },
      async (request) => {
        const { publicKey, plaintext, encoding = 'utf8' } = request.body;
        const sealed = app.operations.run(request, SEALED_BOX, () =>
          sealBox(hexToBytes(publicKey, '/publicKey'), decodeText(plaintext, encoding, '/plaintext')),
        );
        return { data: { ciphertext: bytesToBase64(sealed), algorithm: SEALED_BOX } };
      },
    );

    app.post(
      '/v2/sealedbox/open',
      {
        config: { scope: 'crypto:decrypt', operation: 'sealedbox.open', batch: {} },
        schema: {
          tags: ['sealed-box'],
          summary: "Open a sealed box with the recipient's X25519 private key (libsodium crypto_box_seal_open)",
          body: SealedBoxOpenRequest,
          response: { 200: SealedBoxOpenResponse, ...problemResponses },
        },
      },
      async (request) => {
        const { privateKey, ciphertext, encoding = 'utf8' } = request.body;
        const data = app.operations.run(request, SEALED_BOX, () => {
          const box = base64ToBytes(ciphertext, '/ciphertext');
          return encodePlaintext(
            withHexSecret(privateKey, '/privateKey', (keyBytes) => openBox(keyBytes, box)),
            encoding,
          );
        });
        return { data };
      },
    );

    // X-Wing work stays on the event loop, as on /v2/pq/hybrid/*: even in pure JavaScript it costs
    // about what a worker round trip would cost instead (pq-offload.ts).
    app.post(
      '/v2/sealedbox/seal-pq',
      {
        config: { scope: 'crypto:encrypt', operation: 'sealedbox.seal-pq' },
        schema: {
          tags: ['sealed-box'],
          summary: 'Seal to an X-Wing (X25519 + ML-KEM-768) public key: HPKE base mode, single shot, ChaCha20-Poly1305',
          body: SealedBoxSealPqRequest,
          response: { 200: SealedBoxSealPqResponse, ...problemResponses },
        },
      },
      async (request) => {
        requirePostQuantumScope(request, PQ_SEALED_BOX);
        const { plaintext, encoding = 'utf8' } = request.body;
        const body = request.body;
        const sealed = await app.operations.run(request, PQ_SEALED_BOX, () => {
          const form = chooseForm(body, [['publicKey'], ['x25519PublicKey', 'mlKemPublicKey']]);
          const recipient =
            form === 0
              ? { publicKey: hexToBytes(body.publicKey ?? '', '/publicKey') }
              : {
                  x25519PublicKey: hexToBytes(body.x25519PublicKey ?? '', '/x25519PublicKey'),
                  mlKemPublicKey: hexToBytes(body.mlKemPublicKey ?? '', '/mlKemPublicKey'),
                };
          return sealBoxPq(recipient, decodeText(plaintext, encoding, '/plaintext'));
        });
        return { data: { ciphertext: bytesToBase64(sealed), algorithm: PQ_SEALED_BOX } };
      },
    );

    app.post(
      '/v2/sealedbox/open-pq',
      {
        config: { scope: 'crypto:decrypt', operation: 'sealedbox.open-pq' },
        schema: {
          tags: ['sealed-box'],
          summary:
            'Open a post-quantum sealed box with the X-Wing private key (the seed, or its X25519 and ML-KEM-768 parts)',
          body: SealedBoxOpenPqRequest,
          response: { 200: SealedBoxOpenPqResponse, ...problemResponses },
        },
      },
      async (request) => {
        requirePostQuantumScope(request, PQ_SEALED_BOX);
        const { ciphertext, encoding = 'utf8' } = request.body;
        const body = request.body;
        const data = await app.operations.run(request, PQ_SEALED_BOX, async () => {
          const form = chooseForm(body, [['privateKey'], ['x25519PrivateKey', 'mlKemPrivateKey']]);
          const box = base64ToBytes(ciphertext, '/ciphertext');
          const secrets: Uint8Array[] = [];
          const secret = (value: string | undefined, field: string) => {
            const bytes = hexToBytes(value ?? '', field);
            secrets.push(bytes);
            return bytes;
          };
          try {
            const key =
              form === 0
                ? { privateKey: secret(body.privateKey, '/privateKey') }
                : {
                    x25519PrivateKey: secret(body.x25519PrivateKey, '/x25519PrivateKey'),
                    mlKemPrivateKey: secret(body.mlKemPrivateKey, '/mlKemPrivateKey'),
                  };
            return encodePlaintext(await openBoxPq(key, box), encoding);
          } finally {
            wipe(...secrets);
          }
        });
        return { data };
      },
    );

    app.post(
      '/v2/keys/wrap',
      {
        config: { scope: 'crypto:keys', operation: 'keys.wrap', batch: {} },
        schema: {
          tags: ['keys'],
          summary: 'Wrap a key with AES-KW (RFC 3394) or AES-KWP (RFC 5649)',
          body: KeyWrapRequest,
          response: { 200: KeyWrapResponse, ...problemResponses },
        },
      },
      async (request) => {
        const { kek, keyToWrap, algorithm = 'aes-kw' } = request.body;
        const wrapped = app.operations.run(request, algorithm, () =>
          withHexSecret(kek, '/kek', (kekBytes) =>
            withHexSecret(keyToWrap, '/keyToWrap', (keyBytes) => wrapKey(algorithm, kekBytes, keyBytes)),
          ),
        );
        return { data: { wrappedKey: bytesToBase64(wrapped), algorithm } };
      },
    );

    app.post(
      '/v2/keys/unwrap',
      {
        config: { scope: 'crypto:keys', operation: 'keys.unwrap', batch: {} },
        schema: {
          tags: ['keys'],
          summary: 'Unwrap a key wrapped with AES-KW or AES-KWP',
          body: KeyUnwrapRequest,
          response: { 200: KeyUnwrapResponse, ...problemResponses },
        },
      },
      async (request) => {
        const { kek, wrappedKey, algorithm = 'aes-kw' } = request.body;
        const key = app.operations.run(request, algorithm, () => {
          const wrapped = base64ToBytes(wrappedKey, '/wrappedKey');
          return withHexSecret(kek, '/kek', (kekBytes) => unwrapKey(algorithm, kekBytes, wrapped));
        });
        try {
          return { data: bytesToHex(key) };
        } finally {
          wipe(key);
        }
      },
    );
  },
  { name: 'symmetric-routes', dependencies: ['metrics'], encapsulate: true },
);
