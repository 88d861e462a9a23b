/**
 * The tools: one per operation of the service's /v2 API, each with the request schema of
 * @crypto-service/protocol as its input schema and the client method that forwards it. The
 * deprecated /v1 OpenPGP routes and the probes are left out: an agent has no use for them.
 */
import type { CallOptions, CryptoClient } from '@crypto-service/client';
import * as protocol from '@crypto-service/protocol';
import { SYMMETRIC_KEY_ALGORITHMS } from '@crypto-service/client';
import type { SecretOutput } from './secrets.ts';

/** The tool arguments as the MCP client sent them; the service validates them against the same schema. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- checked by the service, not here
type Arguments = any;

export interface ToolDefinition {
  /** The MCP tool name (letters, digits and underscores). */
  readonly name: string;
  readonly title: string;
  /** What the tool does; the secret-output rule is added to it by the server. */
  readonly description: string;
  /** A JSON Schema object, the route's request schema from @crypto-service/protocol. */
  readonly inputSchema: object;
  /** The service route it forwards to, for the documentation. */
  readonly route: string;
  /** Which parts of the result are private or symmetric key material. */
  readonly secretOutput: SecretOutput;
  readonly call: (client: CryptoClient, args: Arguments, options: CallOptions) => Promise<{ data: unknown }>;
}

/** The symmetric key generation identifiers: their whole result is the secret key. */
const SYMMETRIC: ReadonlySet<string> = new Set(SYMMETRIC_KEY_ALGORITHMS);

const PUBLIC_RESULT: SecretOutput = { kind: 'none' };
const PRIVATE_KEY: SecretOutput = { kind: 'fields', fields: ['privateKey'] };
const SHARED_SECRET: SecretOutput = { kind: 'fields', fields: ['sharedSecret'] };
const WHOLE_RESULT: SecretOutput = { kind: 'whole' };

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'hash',
    title: 'Hash',
    description:
      'Hash data with a SHA-2, SHA-3, SHAKE, BLAKE2b or BLAKE3 function; returns the digest as lowercase hex.',
    inputSchema: protocol.HashRequest,
    route: 'POST /v2/hash',
    secretOutput: PUBLIC_RESULT,
    call: (client, args, options) => client.hash(args, options),
  },
  {
    name: 'encrypt',
    title: 'Encrypt (XChaCha20-Poly1305)',
    description:
      'Encrypt a message under a 32-byte XChaCha20-Poly1305 key (hex), with optional associated data; returns base64 nonce ‖ ciphertext ‖ tag.',
    inputSchema: protocol.EncryptRequest,
    route: 'POST /v2/encrypt',
    secretOutput: PUBLIC_RESULT,
    call: (client, args, options) => client.encrypt(args, options),
  },
  {
    name: 'decrypt',
    title: 'Decrypt (XChaCha20-Poly1305)',
    description:
      'Decrypt and authenticate what the encrypt tool returned, with the same key and associated data; returns the plaintext in `encoding`.',
    inputSchema: protocol.DecryptRequest,
    route: 'POST /v2/decrypt',
    secretOutput: PUBLIC_RESULT,
    call: (client, args, options) => client.decrypt(args, options),
  },
  {
    name: 'sign',
    title: 'Sign',
    description:
      'Sign a message with an Ed25519 (default), Ed448, ECDSA, ML-DSA or SLH-DSA private key; returns the signature as hex.',
    inputSchema: protocol.SignRequest,
    route: 'POST /v2/sign',
    secretOutput: PUBLIC_RESULT,
    call: (client, args, options) => client.sign(args, options),
  },
  {
    name: 'verify',
    title: 'Verify a signature',
    description:
      'Verify a signature with a public key; returns valid true or false (a signature that does not verify is not an error).',
    inputSchema: protocol.VerifyRequest,
    route: 'POST /v2/verify',
    secretOutput: PUBLIC_RESULT,
    call: (client, args, options) => client.verify(args, options),
  },
  {
    name: 'hmac',
    title: 'HMAC',
    description: 'Compute an HMAC (SHA-2 or SHA-3) of data under a hex key; returns the MAC as hex.',
    inputSchema: protocol.HmacRequest,
    route: 'POST /v2/hmac',
    secretOutput: PUBLIC_RESULT,
    call: (client, args, options) => client.mac(args, options),
  },
  {
    name: 'hmac_verify',
    title: 'Verify an HMAC',
    description: 'Check an HMAC in constant time; returns valid true or false.',
    inputSchema: protocol.HmacVerifyRequest,
    route: 'POST /v2/hmac/verify',
    secretOutput: PUBLIC_RESULT,
    call: (client, args, options) => client.macVerify(args, options),
  },
  {
    name: 'kdf',
    title: 'Derive a key',
    description: 'Derive a key from a password or input keying material with scrypt, HKDF or PBKDF2.',
    inputSchema: protocol.KdfRequest,
    route: 'POST /v2/kdf',
    secretOutput: { kind: 'fields', fields: ['derivedKey'] },
    call: (client, args, options) => client.kdf(args, options),
  },
  {
    name: 'password_hash',
    title: 'Hash a password (Argon2id)',
    description: 'Hash a password with Argon2id for storage; returns a PHC string.',
    inputSchema: protocol.PasswordHashRequest,
    route: 'POST /v2/password/hash',
    secretOutput: PUBLIC_RESULT,
    call: (client, args, options) => client.passwordHash(args, options),
  },
  {
    name: 'password_verify',
    title: 'Verify a password',
    description: 'Check a password against an Argon2 PHC string; returns valid and needsRehash.',
    inputSchema: protocol.PasswordVerifyRequest,
    route: 'POST /v2/password/verify',
    secretOutput: PUBLIC_RESULT,
    call: (client, args, options) => client.passwordVerify(args, options),
  },
  {
    name: 'password_encrypt',
    title: 'Encrypt with a password',
    description: 'Encrypt data under a password (Argon2id, then XChaCha20-Poly1305); returns base64.',
    inputSchema: protocol.PasswordEncryptRequest,
    route: 'POST /v2/password/encrypt',
    secretOutput: PUBLIC_RESULT,
    call: (client, args, options) => client.passwordEncrypt(args, options),
  },
  {
    name: 'password_decrypt',
    title: 'Decrypt with a password',
    description: 'Decrypt what password_encrypt returned, with the same password.',
    inputSchema: protocol.PasswordDecryptRequest,
    route: 'POST /v2/password/decrypt',
    secretOutput: PUBLIC_RESULT,
    call: (client, args, options) => client.passwordDecrypt(args, options),
  },
  {
    name: 'keys_generate',
    title: 'Generate a key',
    description:
      'Generate a key pair (Ed25519 by default, Ed448, ECDSA, X25519, X448, ML-KEM, X-Wing, ML-DSA, SLH-DSA) or a symmetric key (AES, XChaCha20-Poly1305, HMAC), as raw hex, PEM or JWK.',
    inputSchema: protocol.KeyGenerateRequest,
    route: 'POST /v2/keys/generate',
    secretOutput: {
      kind: 'fields',
      fields: ['privateKey', 'key'],
      wholeWhen: (args: Arguments) => typeof args?.algorithm === 'string' && SYMMETRIC.has(args.algorithm),
    },
    call: (client, args, options) => client.generateKeyPair(args, options),
  },
  {
    name: 'keys_wrap',
    title: 'Wrap a key (AES-KW)',
    description: 'Wrap a key under an AES key-encryption key (RFC 3394 or RFC 5649); returns base64.',
    inputSchema: protocol.KeyWrapRequest,
    route: 'POST /v2/keys/wrap',
    secretOutput: PUBLIC_RESULT,
    call: (client, args, options) => client.keyWrap(args, options),
  },
  {
    name: 'keys_unwrap',
    title: 'Unwrap a key (AES-KW)',
    description: 'Unwrap what keys_wrap returned, with the same key-encryption key; returns the key as hex.',
    inputSchema: protocol.KeyUnwrapRequest,
    route: 'POST /v2/keys/unwrap',
    secretOutput: WHOLE_RESULT,
    call: (client, args, options) => client.keyUnwrap(args, options),
  },
  {
    name: 'secretbox_seal',
    title: 'Secretbox seal',
    description: 'Seal a message under a 32-byte symmetric key (XChaCha20-Poly1305); returns base64.',
    inputSchema: protocol.SecretboxSealRequest,
    route: 'POST /v2/secretbox/seal',
    secretOutput: PUBLIC_RESULT,
    call: (client, args, options) => client.secretboxSeal(args, options),
  },
  {
    name: 'secretbox_open',
    title: 'Secretbox open',
    description: 'Open what secretbox_seal returned, with the same key.',
    inputSchema: protocol.SecretboxOpenRequest,
    route: 'POST /v2/secretbox/open',
    secretOutput: PUBLIC_RESULT,
    call: (client, args, options) => client.secretboxOpen(args, options),
  },
  {
    name: 'sealedbox_seal',
    title: 'Sealed box seal (X25519)',
    description:
      "Encrypt a message to a recipient's X25519 public key (libsodium crypto_box_seal): only the private key's holder can open it.",
    inputSchema: protocol.SealedBoxSealRequest,
    route: 'POST /v2/sealedbox/seal',
    secretOutput: PUBLIC_RESULT,
    call: (client, args, options) => client.sealedboxSeal(args, options),
  },
  {
    name: 'sealedbox_open',
    title: 'Sealed box open (X25519)',
    description: 'Open a sealed box with the X25519 private key.',
    inputSchema: protocol.SealedBoxOpenRequest,
    route: 'POST /v2/sealedbox/open',
    secretOutput: PUBLIC_RESULT,
    call: (client, args, options) => client.sealedboxOpen(args, options),
  },
  {
    name: 'sealedbox_seal_pq',
    title: 'Post-quantum sealed box seal (X-Wing)',
    description: "Encrypt a message to a recipient's X-Wing public key (HPKE with X25519 and ML-KEM-768).",
    inputSchema: protocol.SealedBoxSealPqRequest,
    route: 'POST /v2/sealedbox/seal-pq',
    secretOutput: PUBLIC_RESULT,
    call: (client, args, options) => client.sealedboxSealPq(args, options),
  },
  {
    name: 'sealedbox_open_pq',
    title: 'Post-quantum sealed box open (X-Wing)',
    description: 'Open a post-quantum sealed box with the X-Wing private key.',
    inputSchema: protocol.SealedBoxOpenPqRequest,
    route: 'POST /v2/sealedbox/open-pq',
    secretOutput: PUBLIC_RESULT,
    call: (client, args, options) => client.sealedboxOpenPq(args, options),
  },
  {
    name: 'multi_recipient_encrypt',
    title: 'Encrypt to several recipients',
    description: 'Encrypt data once for several X25519 or X-Wing public keys; returns the envelope.',
    inputSchema: protocol.MultiRecipientEncryptRequest,
    route: 'POST /v2/multi-recipient/encrypt',
    secretOutput: PUBLIC_RESULT,
    call: (client, args, options) => client.multiRecipientEncrypt(args, options),
  },
  {
    name: 'multi_recipient_decrypt',
    title: 'Decrypt a multi-recipient envelope',
    description: "Decrypt a multi-recipient envelope with one recipient's private key.",
    inputSchema: protocol.MultiRecipientDecryptRequest,
    route: 'POST /v2/multi-recipient/decrypt',
    secretOutput: PUBLIC_RESULT,
    call: (client, args, options) => client.multiRecipientDecrypt(args, options),
  },
  {
    name: 'pq_kem_keygen',
    title: 'ML-KEM key pair',
    description: 'Generate an ML-KEM key pair (FIPS 203; ml-kem-768 by default).',
    inputSchema: protocol.PqKeygenRequest,
    route: 'POST /v2/pq/keygen',
    secretOutput: PRIVATE_KEY,
    call: (client, args, options) => client.mlKemKeygen(args, options),
  },
  {
    name: 'pq_kem_encapsulate',
    title: 'ML-KEM encapsulate',
    description: 'Encapsulate a fresh shared secret to an ML-KEM public key; returns the ciphertext and the secret.',
    inputSchema: protocol.PqEncapsulateRequest,
    route: 'POST /v2/pq/encapsulate',
    secretOutput: SHARED_SECRET,
    call: (client, args, options) => client.mlKemEncapsulate(args, options),
  },
  {
    name: 'pq_kem_decapsulate',
    title: 'ML-KEM decapsulate',
    description: 'Recover the shared secret of an ML-KEM ciphertext with the private key.',
    inputSchema: protocol.PqDecapsulateRequest,
    route: 'POST /v2/pq/decapsulate',
    secretOutput: WHOLE_RESULT,
    call: (client, args, options) => client.mlKemDecapsulate(args, options),
  },
  {
    name: 'pq_hybrid_keygen',
    title: 'X-Wing key pair',
    description: 'Generate an X-Wing (X25519 + ML-KEM-768) hybrid key pair.',
    inputSchema: protocol.PqHybridKeygenRequest,
    route: 'POST /v2/pq/hybrid/keygen',
    secretOutput: PRIVATE_KEY,
    call: (client, args, options) => client.pqGenerateKeyPair(args, options),
  },
  {
    name: 'pq_hybrid_encapsulate',
    title: 'X-Wing encapsulate',
    description: 'Encapsulate a fresh shared secret to an X-Wing public key; returns the ciphertext and the secret.',
    inputSchema: protocol.PqHybridEncapsulateRequest,
    route: 'POST /v2/pq/hybrid/encapsulate',
    secretOutput: SHARED_SECRET,
    call: (client, args, options) => client.pqEncapsulate(args, options),
  },
  {
    name: 'pq_hybrid_decapsulate',
    title: 'X-Wing decapsulate',
    description: 'Recover the shared secret of an X-Wing ciphertext with the private key.',
    inputSchema: protocol.PqHybridDecapsulateRequest,
    route: 'POST /v2/pq/hybrid/decapsulate',
    secretOutput: WHOLE_RESULT,
    call: (client, args, options) => client.pqDecapsulate(args, options),
  },
  {
    name: 'pq_dsa_keygen',
    title: 'ML-DSA key pair',
    description: 'Generate an ML-DSA key pair (FIPS 204; ml-dsa-65 by default).',
    inputSchema: protocol.PqDsaKeygenRequest,
    route: 'POST /v2/pq/dsa/keygen',
    secretOutput: PRIVATE_KEY,
    call: (client, args, options) => client.pqSignKeygen(args, options),
  },
  {
    name: 'pq_dsa_sign',
    title: 'ML-DSA sign',
    description: 'Sign a message with an ML-DSA private key (seed or expanded key).',
    inputSchema: protocol.PqDsaSignRequest,
    route: 'POST /v2/pq/dsa/sign',
    secretOutput: PUBLIC_RESULT,
    call: (client, args, options) => client.pqSign(args, options),
  },
  {
    name: 'pq_dsa_verify',
    title: 'ML-DSA verify',
    description: 'Verify an ML-DSA signature; returns valid true or false.',
    inputSchema: protocol.PqDsaVerifyRequest,
    route: 'POST /v2/pq/dsa/verify',
    secretOutput: PUBLIC_RESULT,
    call: (client, args, options) => client.pqVerify(args, options),
  },
  {
    name: 'pq_slh_dsa_keygen',
    title: 'SLH-DSA key pair',
    description: 'Generate an SLH-DSA key pair (FIPS 205; slh-dsa-sha2-128f by default).',
    inputSchema: protocol.PqSlhDsaKeygenRequest,
    route: 'POST /v2/pq/slh-dsa/keygen',
    secretOutput: PRIVATE_KEY,
    call: (client, args, options) => client.slhDsaKeygen(args, options),
  },
  {
    name: 'pq_slh_dsa_sign',
    title: 'SLH-DSA sign',
    description: 'Sign a message with an SLH-DSA private key.',
    inputSchema: protocol.PqSlhDsaSignRequest,
    route: 'POST /v2/pq/slh-dsa/sign',
    secretOutput: PUBLIC_RESULT,
    call: (client, args, options) => client.slhDsaSign(args, options),
  },
  {
    name: 'pq_slh_dsa_verify',
    title: 'SLH-DSA verify',
    description: 'Verify an SLH-DSA signature; returns valid true or false.',
    inputSchema: protocol.PqSlhDsaVerifyRequest,
    route: 'POST /v2/pq/slh-dsa/verify',
    secretOutput: PUBLIC_RESULT,
    call: (client, args, options) => client.slhDsaVerify(args, options),
  },
  {
    name: 'algorithms',
    title: 'List algorithms',
    description: 'List every algorithm identifier that each operation accepts.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    route: 'GET /v2/algorithms',
    secretOutput: PUBLIC_RESULT,
    call: (client, _args, options) => client.algorithms(options),
  },
];
