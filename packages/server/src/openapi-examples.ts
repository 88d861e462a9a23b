/**
 * A request example (for operations that take a body) and a 200 response example for every
 * operation of the OpenAPI document, keyed by "METHOD /path". The values are real: a consuming
 * operation's example sends back what its producer's example answered (openapi-example-values.ts),
 * and a test sends every request example to the app.
 */
import * as value from './openapi-example-values.ts';

export interface OperationExample {
  /** The JSON request body, for operations that take one. */
  request?: unknown;
  /** The 200 response body: JSON, or text for a `contentType` that is not JSON. */
  response: unknown;
  /** True when the same request always gets exactly this response: no randomness, no clock. */
  reproducible: boolean;
  /** The media type of the response when it is not application/json. */
  contentType?: string;
  /** The media type of the request when it is not application/json (its example is then the parts). */
  requestContentType?: string;
  /** Binary values (a multipart `data` part, an octet-stream answer) are shown in base64. */
  binaryAsBase64?: boolean;
}

const MESSAGE = 'hello';
const PASSWORD = 'correct horse battery staple';
const AAD = 'invoice-42';
const XCHACHA = 'xchacha20-poly1305';

const encrypted = { ciphertext: value.AEAD_CIPHERTEXT, algorithm: XCHACHA };
const secretboxSealed = { ciphertext: value.SECRETBOX_CIPHERTEXT, algorithm: XCHACHA };
const sealedBox = { ciphertext: value.SEALEDBOX_CIPHERTEXT, algorithm: 'x25519-xsalsa20-poly1305' };
const sealedBoxPq = {
  ciphertext: value.SEALEDBOX_PQ_CIPHERTEXT,
  algorithm: 'hpke-x25519-ml-kem-768-chacha20-poly1305',
};
const wrapped = { wrappedKey: value.WRAPPED_KEY, algorithm: 'aes-kw' };
const passwordEncrypted = { ciphertext: value.PASSWORD_CIPHERTEXT, algorithm: 'argon2id-xchacha20-poly1305' };
const passwordHashed = { hash: value.PASSWORD_HASH, algorithm: 'argon2id', params: { t: 3, m: 65536, p: 4 } };
const hmac = { mac: value.HMAC_SHA256_MAC, algorithm: 'hmac-sha256' };
const ed25519Signed = { signature: value.ED25519_SIGNATURE, algorithm: 'ed25519' };
const mlDsaSigned = { signature: value.ML_DSA_SIGNATURE, algorithm: 'ml-dsa-44' };
const slhDsaSigned = { signature: value.SLH_DSA_SIGNATURE, algorithm: 'slh-dsa-sha2-128s' };
const multiRecipientEnvelope = {
  ciphertext: value.MULTI_RECIPIENT_CIPHERTEXT,
  recipients: [
    { type: 'x25519', enc: value.MULTI_RECIPIENT_X25519_ENC, wrappedKey: value.MULTI_RECIPIENT_X25519_WRAPPED_KEY },
    {
      type: 'x25519-ml-kem-768',
      enc: value.MULTI_RECIPIENT_XWING_ENC,
      wrappedKey: value.MULTI_RECIPIENT_XWING_WRAPPED_KEY,
    },
  ],
  algorithm: 'hpke-xchacha20-poly1305',
};
const xWingKeyPair = {
  publicKey: value.XWING_PUBLIC_KEY,
  privateKey: value.XWING_PRIVATE_KEY,
  algorithm: 'x25519-ml-kem-768',
};
const mlDsaKeyPair = {
  publicKey: value.ML_DSA_PUBLIC_KEY,
  privateKey: value.ML_DSA_PRIVATE_KEY,
  algorithm: 'ml-dsa-44',
};
const slhDsaKeyPair = {
  publicKey: value.SLH_DSA_PUBLIC_KEY,
  privateKey: value.SLH_DSA_PRIVATE_KEY,
  algorithm: 'slh-dsa-sha2-128s',
};

/** The SLH-DSA operations, served under two prefixes. */
function slhDsaExamples(prefix: string): Record<string, OperationExample> {
  return {
    [`POST ${prefix}/keygen`]: {
      request: { algorithm: 'slh-dsa-sha2-128s' },
      response: { data: slhDsaKeyPair },
      reproducible: false,
    },
    [`POST ${prefix}/sign`]: {
      request: { privateKey: value.SLH_DSA_PRIVATE_KEY, message: MESSAGE, algorithm: 'slh-dsa-sha2-128s' },
      response: { data: slhDsaSigned },
      reproducible: false,
    },
    [`POST ${prefix}/verify`]: {
      request: { publicKey: value.SLH_DSA_PUBLIC_KEY, message: MESSAGE, ...slhDsaSigned },
      response: { data: { valid: true, algorithm: 'slh-dsa-sha2-128s' } },
      reproducible: true,
    },
  };
}

export const OPERATION_EXAMPLES: Readonly<Record<string, OperationExample>> = {
  'GET /live': { response: { status: 'alive', uptime: 3600.25 }, reproducible: false },
  'GET /health': { response: { status: 'ok', uptime: 3600.25 }, reproducible: false },
  'GET /ready': {
    response: { status: 'ready', checks: { shutdown: 'pass', 'self-tests': 'pass' }, disabled: [] },
    reproducible: true,
  },
  'GET /metrics': {
    contentType: 'text/plain',
    response: [
      '# HELP http_requests_total HTTP requests by method, route template and status code',
      '# TYPE http_requests_total counter',
      'http_requests_total{method="POST",route="/v2/hash",status_code="200"} 1',
      '',
      '# HELP crypto_operations_total Crypto operations by operation, algorithm and outcome (success, rejected, unavailable, error)',
      '# TYPE crypto_operations_total counter',
      'crypto_operations_total{operation="hash.digest",algorithm="sha256",outcome="success"} 1',
      '',
    ].join('\n'),
    reproducible: false,
  },
  'GET /v2/algorithms': {
    response: {
      data: {
        hash: [
          'sha256',
          'sha384',
          'sha512',
          'sha512-256',
          'sha3-256',
          'sha3-384',
          'sha3-512',
          'shake128',
          'shake256',
          'blake2b-256',
          'blake2b-512',
          'blake2b',
          'blake3',
        ],
        aead: [XCHACHA],
        signature: [
          'ed25519',
          'ed448',
          'ecdsa-p256',
          'ecdsa-p384',
          'ml-dsa-44',
          'ml-dsa-65',
          'ml-dsa-87',
          'slh-dsa-sha2-128s',
          'slh-dsa-sha2-128f',
          'slh-dsa-sha2-192s',
          'slh-dsa-sha2-192f',
          'slh-dsa-sha2-256s',
          'slh-dsa-sha2-256f',
          'slh-dsa-shake-128s',
          'slh-dsa-shake-128f',
          'slh-dsa-shake-192s',
          'slh-dsa-shake-192f',
          'slh-dsa-shake-256s',
          'slh-dsa-shake-256f',
        ],
        mlDsa: ['ml-dsa-44', 'ml-dsa-65', 'ml-dsa-87'],
        slhDsa: [
          'slh-dsa-sha2-128s',
          'slh-dsa-sha2-128f',
          'slh-dsa-sha2-192s',
          'slh-dsa-sha2-192f',
          'slh-dsa-sha2-256s',
          'slh-dsa-sha2-256f',
          'slh-dsa-shake-128s',
          'slh-dsa-shake-128f',
          'slh-dsa-shake-192s',
          'slh-dsa-shake-192f',
          'slh-dsa-shake-256s',
          'slh-dsa-shake-256f',
        ],
        mlKem: ['ml-kem-512', 'ml-kem-768', 'ml-kem-1024'],
        hybridKem: ['x25519-ml-kem-768'],
        kdf: ['scrypt', 'hkdf-sha256', 'hkdf-sha384', 'hkdf-sha512', 'pbkdf2-sha256'],
        mac: ['hmac-sha256', 'hmac-sha384', 'hmac-sha512', 'hmac-sha3-256', 'hmac-sha3-384', 'hmac-sha3-512'],
        password: ['argon2id'],
        passwordEncryption: ['argon2id-xchacha20-poly1305'],
        keyWrap: ['aes-kw', 'aes-kwp'],
        sealedBox: ['x25519-xsalsa20-poly1305'],
        pqSealedBox: ['hpke-x25519-ml-kem-768-chacha20-poly1305'],
        multiRecipient: ['hpke-xchacha20-poly1305'],
        recipientType: ['x25519', 'x25519-ml-kem-768'],
        keyGeneration: [
          'ed25519',
          'ed448',
          'ecdsa-p256',
          'ecdsa-p384',
          'x25519',
          'x448',
          XCHACHA,
          'aes-128',
          'aes-192',
          'aes-256',
          'hmac-sha256',
          'hmac-sha384',
          'hmac-sha512',
          'hmac-sha3-256',
          'hmac-sha3-384',
          'hmac-sha3-512',
          'ml-kem-512',
          'ml-kem-768',
          'ml-kem-1024',
          'x25519-ml-kem-768',
          'ml-dsa-44',
          'ml-dsa-65',
          'ml-dsa-87',
          'slh-dsa-sha2-128s',
          'slh-dsa-sha2-128f',
          'slh-dsa-sha2-192s',
          'slh-dsa-sha2-192f',
          'slh-dsa-sha2-256s',
          'slh-dsa-sha2-256f',
          'slh-dsa-shake-128s',
          'slh-dsa-shake-128f',
          'slh-dsa-shake-192s',
          'slh-dsa-shake-192f',
          'slh-dsa-shake-256s',
          'slh-dsa-shake-256f',
        ],
      },
    },
    reproducible: true,
  },

  'POST /v2/hash': {
    request: { algorithm: 'sha256', data: MESSAGE },
    response: { data: value.SHA256_HELLO },
    reproducible: true,
  },
  'POST /v2/encrypt': {
    request: { key: value.AEAD_KEY, plaintext: MESSAGE, aad: AAD },
    response: { data: encrypted },
    reproducible: false,
  },
  'POST /v2/decrypt': {
    request: { key: value.AEAD_KEY, ...encrypted, aad: AAD },
    response: { data: MESSAGE },
    reproducible: true,
  },
  'POST /v2/stream/encrypt': {
    request: { params: JSON.stringify({ key: value.AEAD_KEY }), data: Buffer.from(MESSAGE).toString('base64') },
    requestContentType: 'multipart/form-data',
    response: value.STREAM_CIPHERTEXT_BASE64,
    contentType: 'application/octet-stream',
    binaryAsBase64: true,
    reproducible: false,
  },
  'POST /v2/stream/decrypt': {
    request: { params: JSON.stringify({ key: value.AEAD_KEY }), data: value.STREAM_CIPHERTEXT_BASE64 },
    requestContentType: 'multipart/form-data',
    response: Buffer.from(MESSAGE).toString('base64'),
    contentType: 'application/octet-stream',
    binaryAsBase64: true,
    reproducible: true,
  },
  'POST /v2/secretbox/seal': {
    request: { key: value.AEAD_KEY, plaintext: MESSAGE },
    response: { data: secretboxSealed },
    reproducible: false,
  },
  'POST /v2/secretbox/open': {
    request: { key: value.AEAD_KEY, ...secretboxSealed },
    response: { data: MESSAGE },
    reproducible: true,
  },
  'POST /v2/sealedbox/seal': {
    request: { publicKey: value.X25519_PUBLIC_KEY, plaintext: MESSAGE },
    response: { data: sealedBox },
    reproducible: false,
  },
  'POST /v2/sealedbox/open': {
    request: { privateKey: value.X25519_PRIVATE_KEY, ...sealedBox },
    response: { data: MESSAGE },
    reproducible: true,
  },
  'POST /v2/sealedbox/seal-pq': {
    request: { publicKey: value.XWING_PUBLIC_KEY, plaintext: MESSAGE },
    response: { data: sealedBoxPq },
    reproducible: false,
  },
  'POST /v2/sealedbox/open-pq': {
    request: { privateKey: value.XWING_PRIVATE_KEY, ...sealedBoxPq },
    response: { data: MESSAGE },
    reproducible: true,
  },
  'POST /v2/keys/wrap': {
    request: { kek: value.KEK, keyToWrap: value.KEY_TO_WRAP, algorithm: 'aes-kw' },
    response: { data: wrapped },
    reproducible: true,
  },
  'POST /v2/keys/unwrap': {
    request: { kek: value.KEK, ...wrapped },
    response: { data: value.KEY_TO_WRAP },
    reproducible: true,
  },
  'POST /v2/keys/generate': {
    request: { algorithm: 'ed25519', format: 'raw' },
    response: {
      data: {
        algorithm: 'ed25519',
        format: 'raw',
        publicKey: value.ED25519_PUBLIC_KEY,
        privateKey: value.ED25519_PRIVATE_KEY,
      },
    },
    reproducible: false,
  },
  'POST /v2/sign': {
    request: { privateKey: value.ED25519_PRIVATE_KEY, message: MESSAGE, algorithm: 'ed25519' },
    response: { data: ed25519Signed },
    reproducible: true,
  },
  'POST /v2/verify': {
    request: { publicKey: value.ED25519_PUBLIC_KEY, message: MESSAGE, ...ed25519Signed },
    response: { data: { valid: true, algorithm: 'ed25519' } },
    reproducible: true,
  },
  'POST /v2/kdf': {
    request: {
      algorithm: 'hkdf-sha256',
      password: 'input keying material',
      salt: '000102030405060708090a0b0c0d0e0f',
      keyLength: 32,
      params: { info: 'session key v1' },
    },
    response: {
      data: {
        derivedKey: value.HKDF_DERIVED_KEY,
        salt: '000102030405060708090a0b0c0d0e0f',
        algorithm: 'hkdf-sha256',
        keyLength: 32,
        params: { info: 'session key v1' },
      },
    },
    reproducible: true,
  },
  'POST /v2/hmac': {
    request: { algorithm: 'hmac-sha256', key: value.HMAC_KEY, data: MESSAGE },
    response: { data: hmac },
    reproducible: true,
  },
  'POST /v2/hmac/verify': {
    request: { key: value.HMAC_KEY, data: MESSAGE, ...hmac },
    response: { data: { valid: true, algorithm: 'hmac-sha256' } },
    reproducible: true,
  },
  'POST /v2/password/hash': {
    request: { password: PASSWORD },
    response: { data: passwordHashed },
    reproducible: false,
  },
  'POST /v2/password/verify': {
    request: { password: PASSWORD, ...passwordHashed },
    response: { data: { valid: true, needsRehash: false } },
    reproducible: true,
  },
  'POST /v2/password/encrypt': {
    request: { password: PASSWORD, plaintext: MESSAGE },
    response: { data: passwordEncrypted },
    reproducible: false,
  },
  'POST /v2/password/decrypt': {
    request: { password: PASSWORD, ...passwordEncrypted },
    response: { data: MESSAGE },
    reproducible: true,
  },
  'POST /v2/multi-recipient/encrypt': {
    request: {
      plaintext: MESSAGE,
      recipients: [{ publicKey: value.X25519_PUBLIC_KEY }, { publicKey: value.XWING_PUBLIC_KEY }],
    },
    response: { data: multiRecipientEnvelope },
    reproducible: false,
  },
  'POST /v2/multi-recipient/decrypt': {
    request: { privateKey: value.X25519_PRIVATE_KEY, ...multiRecipientEnvelope },
    response: { data: MESSAGE },
    reproducible: true,
  },

  'POST /v2/pq/keygen': {
    request: { algorithm: 'ml-kem-768' },
    response: {
      data: { publicKey: value.ML_KEM_PUBLIC_KEY, privateKey: value.ML_KEM_PRIVATE_KEY, algorithm: 'ml-kem-768' },
    },
    reproducible: false,
  },
  'POST /v2/pq/encapsulate': {
    request: { publicKey: value.ML_KEM_PUBLIC_KEY },
    response: {
      data: { ciphertext: value.ML_KEM_CIPHERTEXT, sharedSecret: value.ML_KEM_SHARED_SECRET, algorithm: 'ml-kem-768' },
    },
    reproducible: false,
  },
  'POST /v2/pq/decapsulate': {
    request: { privateKey: value.ML_KEM_PRIVATE_KEY, ciphertext: value.ML_KEM_CIPHERTEXT, algorithm: 'ml-kem-768' },
    response: { data: { sharedSecret: value.ML_KEM_SHARED_SECRET, algorithm: 'ml-kem-768' } },
    reproducible: true,
  },
  'POST /v2/pq/hybrid/keygen': {
    request: {},
    response: { data: xWingKeyPair },
    reproducible: false,
  },
  'POST /v2/pq/hybrid/encapsulate': {
    request: { publicKey: value.XWING_PUBLIC_KEY },
    response: {
      data: {
        ciphertext: value.XWING_CIPHERTEXT,
        sharedSecret: value.XWING_SHARED_SECRET,
        algorithm: 'x25519-ml-kem-768',
      },
    },
    reproducible: false,
  },
  'POST /v2/pq/hybrid/decapsulate': {
    request: { privateKey: value.XWING_PRIVATE_KEY, ciphertext: value.XWING_CIPHERTEXT },
    response: { data: { sharedSecret: value.XWING_SHARED_SECRET, algorithm: 'x25519-ml-kem-768' } },
    reproducible: true,
  },
  'POST /v2/pq/dsa/keygen': {
    request: { algorithm: 'ml-dsa-44' },
    response: { data: mlDsaKeyPair },
    reproducible: false,
  },
  'POST /v2/pq/dsa/sign': {
    request: { privateKey: value.ML_DSA_PRIVATE_KEY, message: MESSAGE, algorithm: 'ml-dsa-44' },
    response: { data: mlDsaSigned },
    reproducible: false,
  },
  'POST /v2/pq/dsa/verify': {
    request: { publicKey: value.ML_DSA_PUBLIC_KEY, message: MESSAGE, ...mlDsaSigned },
    response: { data: { valid: true, algorithm: 'ml-dsa-44' } },
    reproducible: true,
  },
  ...slhDsaExamples('/v2/pq/slh-dsa'),
  ...slhDsaExamples('/v2/pq/hash-sign'),

  'POST /v1/generate': {
    request: { name: 'Alice Example', email: 'alice@example.com', passphrase: PASSWORD },
    response: {
      data: {
        publicKey: value.PGP_PUBLIC_KEY,
        privateKey: value.PGP_PRIVATE_KEY,
        revocationCertificate: value.PGP_REVOCATION_CERTIFICATE,
        fingerprint: value.PGP_FINGERPRINT,
      },
    },
    reproducible: false,
  },
  'POST /v1/encrypt': {
    request: { message: MESSAGE, publicKeys: value.PGP_PUBLIC_KEY },
    response: { data: value.PGP_MESSAGE },
    reproducible: false,
  },
  'POST /v1/decrypt': {
    request: { message: value.PGP_MESSAGE, privateKey: value.PGP_PRIVATE_KEY, passphrase: PASSWORD },
    response: { data: MESSAGE },
    reproducible: true,
  },
  'POST /v1/sign': {
    request: { message: MESSAGE, privateKey: value.PGP_PRIVATE_KEY, passphrase: PASSWORD },
    response: { data: value.PGP_SIGNED_MESSAGE },
    reproducible: false,
  },
  'POST /v1/verify': {
    request: { message: value.PGP_SIGNED_MESSAGE, publicKeys: value.PGP_PUBLIC_KEY },
    response: { data: { valid: true, signatures: [{ keyId: value.PGP_KEY_ID, valid: true }] } },
    reproducible: true,
  },
  'POST /v1/revoke': {
    request: { privateKey: value.PGP_PRIVATE_KEY, passphrase: PASSWORD, reason: 'key retired' },
    response: { data: { publicKey: value.PGP_REVOKED_PUBLIC_KEY } },
    reproducible: false,
  },
};
