/**
 * Real key material and real ciphertexts, so that generated requests get past validation into the
 * crypto code (and, once mutated, reach it with almost-right values: a flipped bit in a real
 * ciphertext, a real key one byte short).
 *
 * Deterministic: every secret comes from SHAKE256 of a fixed label, and every value made from it
 * by a deterministic entry point of core (key pairs from seeds, ML-DSA with given randomness,
 * deterministic SLH-DSA, XChaCha20 with a given nonce, Argon2id with a given salt), by noble
 * (ECDSA with RFC 6979 nonces) or by node:crypto (HMAC, PEM forms). The three values that core can only make
 * with fresh randomness (the X25519 sealed box, the post-quantum sealed box, the multi-recipient
 * envelope) differ between runs; a replay draws the same case with those bytes fresh.
 * The OpenPGP material and the PEM keys of other algorithms are fixtures (v1-fixtures.ts,
 * pem-fixtures.ts).
 */
import { createHash, createHmac, createPrivateKey, createPublicKey } from 'node:crypto';
import { p256, p384 } from '@noble/curves/nist.js';
import {
  ML_DSA_PARAMETERS,
  ML_KEM_PARAMETERS,
  SLH_DSA_PARAMETERS,
  encryptWithPassword,
  hashPassword,
  mlDsaKeygen,
  mlDsaSign,
  mlKemEncapsulate,
  mlKemKeyPairFromSeed,
  multiRecipientEncrypt,
  postQuantumPrivateKeyDer,
  postQuantumPublicKeyDer,
  sealBox,
  sealBoxPq,
  signMessage,
  slhDsaKeygen,
  slhDsaSign,
  wrapKey,
  x25519PublicKeyOf,
  xchachaSeal,
  xwingEncapsulate,
  xwingKeyPairFromSeed,
  type Argon2Params,
  type MlDsaAlgorithm,
  type MlKemAlgorithm,
  type SlhDsaAlgorithm,
} from '@crypto-service/core';
import { toBase64, toHex } from './arbitraries.ts';
import { DETACHED_TEXT, SYMMETRIC_PASSPHRASE, V1_FIXTURES } from './v1-fixtures.ts';
import { FOREIGN_PEMS } from './pem-fixtures.ts';

/** Argon2id parameters of the corpus's hashes and blobs: the floor, so that checking them is cheap. */
export const CHEAP_ARGON2: Readonly<Argon2Params> = { t: 2, m: 19456, p: 1 };

const utf8 = (text: string) => new TextEncoder().encode(text);

/** Deterministic bytes for a label: SHAKE256("crypto-service fuzz corpus/" ‖ label). */
export function corpusBytes(label: string, length: number): Uint8Array {
  return new Uint8Array(
    createHash('shake256', { outputLength: length }).update(`crypto-service fuzz corpus/${label}`).digest(),
  );
}

export interface Signer {
  algorithm: string;
  /** Raw private key (hex): seed, scalar, or SLH-DSA secret key. */
  privateKey: string;
  /** Where one exists: the PEM (PKCS#8) form, which /v2/sign also takes. */
  privatePem?: string;
  publicKey: string;
  /** Where one exists: the PEM (SPKI) form, which /v2/verify also takes. */
  publicPem?: string;
  message: string;
  context?: string;
  signature: string;
}

export interface Corpus {
  aeadKeys: string[];
  /** XChaCha20-Poly1305 blobs (the format of /v2/encrypt and /v2/secretbox/seal). */
  aeadBlobs: { key: string; ciphertext: string; aad?: string }[];
  x25519: { privateKey: string; publicKey: string }[];
  sealedBoxes: { privateKey: string; ciphertext: string }[];
  xwing: {
    privateKey: string;
    publicKey: string;
    x25519PublicKey: string;
    x25519PrivateKey: string;
    mlKemPublicKey: string;
    mlKemPrivateKey: string;
    /** The X-Wing ciphertext of an encapsulation to the key. */
    ciphertext: string;
    /** A post-quantum sealed box to the key. */
    sealed: string;
  }[];
  keyWraps: { algorithm: 'aes-kw' | 'aes-kwp'; kek: string; keyToWrap: string; wrappedKey: string }[];
  signers: Signer[];
  hmacs: { algorithm: string; key: string; data: string; mac: string }[];
  mlKem: { algorithm: MlKemAlgorithm; publicKey: string; seed: string; expanded: string; ciphertext: string }[];
  mlDsa: {
    algorithm: MlDsaAlgorithm;
    seed: string;
    expanded: string;
    publicKey: string;
    message: string;
    context: string;
    signature: string;
  }[];
  slhDsa: {
    algorithm: SlhDsaAlgorithm;
    privateKey: string;
    publicKey: string;
    message: string;
    context: string;
    signature: string;
  }[];
  phc: { password: string; hash: string }[];
  passwordBlobs: { password: string; ciphertext: string }[];
  multiRecipient: {
    ciphertext: string;
    recipients: { type: string; enc: string; wrappedKey: string }[];
    credentials: Record<string, string>[];
    publicKeys: Record<string, string>[];
  }[];
  v1: typeof V1_FIXTURES & { symmetricPassphrase: string; detachedText: string };
  /** PEM keys of other algorithms and forms (pem-fixtures.ts). */
  foreignPrivatePems: string[];
  foreignPublicPems: string[];
}

const pem = (label: string, der: Uint8Array) =>
  `-----BEGIN ${label}-----\n${toBase64(der).replace(/.{1,64}/g, '$&\n')}-----END ${label}-----\n`;

/** PKCS#8 of an Ed25519 or Ed448 seed (RFC 8410), made by node:crypto. */
function okpPem(curve: 'ed25519' | 'ed448', seed: Uint8Array): string {
  const prefix = curve === 'ed25519' ? '302e020100300506032b657004220420' : '3047020100300506032b6571043b0439';
  const key = createPrivateKey({
    key: Buffer.concat([Buffer.from(prefix, 'hex'), seed]),
    format: 'der',
    type: 'pkcs8',
  });
  return key.export({ format: 'pem', type: 'pkcs8' }).toString();
}

async function classicalSigners(): Promise<Signer[]> {
  const signers: Signer[] = [];
  for (const curve of ['ed25519', 'ed448'] as const) {
    const seed = corpusBytes(`${curve}/seed`, curve === 'ed25519' ? 32 : 57);
    const privatePem = okpPem(curve, seed);
    const publicX = createPrivateKey(privatePem).export({ format: 'jwk' }).x as string;
    const message = `message for ${curve}`;
    const context = curve === 'ed448' ? 'fuzz context' : undefined;
    const signature = await signMessage(
      curve,
      seed,
      utf8(message),
      context === undefined ? {} : { context: utf8(context) },
    );
    const publicPem = createPublicKey(privatePem).export({ format: 'pem', type: 'spki' }).toString();
    signers.push({
      algorithm: curve,
      privateKey: toHex(seed),
      privatePem,
      publicKey: Buffer.from(publicX, 'base64url').toString('hex'),
      publicPem,
      message,
      ...(context === undefined ? {} : { context }),
      signature: toHex(signature),
    });
  }
  for (const [algorithm, curve, size] of [
    ['ecdsa-p256', p256, 32],
    ['ecdsa-p384', p384, 48],
  ] as const) {
    // A scalar below the group order: SHAKE output is, with overwhelming probability; reduce anyway.
    const scalar = (BigInt(`0x${toHex(corpusBytes(`${algorithm}/scalar`, size))}`) % (curve.Point.CURVE().n - 1n)) + 1n;
    const secret = Buffer.from(scalar.toString(16).padStart(size * 2, '0'), 'hex');
    const message = `message for ${algorithm}`;
    const signature = curve.sign(utf8(message), secret);
    const point = curve.getPublicKey(secret, false);
    const jwk = {
      kty: 'EC',
      crv: algorithm === 'ecdsa-p256' ? 'P-256' : 'P-384',
      d: secret.toString('base64url'),
      x: Buffer.from(point.subarray(1, 1 + size)).toString('base64url'),
      y: Buffer.from(point.subarray(1 + size)).toString('base64url'),
    };
    const key = createPrivateKey({ key: jwk, format: 'jwk' });
    signers.push({
      algorithm,
      privateKey: toHex(secret),
      privatePem: key.export({ format: 'pem', type: 'pkcs8' }).toString(),
      publicKey: toHex(point),
      publicPem: createPublicKey(key).export({ format: 'pem', type: 'spki' }).toString(),
      message,
      signature: toHex(signature),
    });
  }
  return signers;
}

async function mlDsaEntries(): Promise<Corpus['mlDsa']> {
  const entries: Corpus['mlDsa'] = [];
  for (const algorithm of Object.keys(ML_DSA_PARAMETERS) as MlDsaAlgorithm[]) {
    const { noble } = ML_DSA_PARAMETERS[algorithm];
    const seed = corpusBytes(`${algorithm}/seed`, 32);
    const pair = await mlDsaKeygen(algorithm, { seed });
    const message = `message for ${algorithm}`;
    const context = 'fuzz context';
    const { signature } = await mlDsaSign(seed, utf8(message), {
      algorithm,
      context: utf8(context),
      randomness: corpusBytes(`${algorithm}/rnd`, 32),
    });
    entries.push({
      algorithm,
      seed: toHex(seed),
      expanded: toHex(noble.keygen(seed).secretKey),
      publicKey: toHex(pair.publicKey),
      message,
      context,
      signature: toHex(signature),
    });
  }
  return entries;
}

/**
 * SLH-DSA: the fastest set only. Deterministic signing runs in pure JavaScript (noble), where an
 * 's' set costs seconds and even SHAKE-128f two thirds of one; other sets' keys are random bytes
 * of their length, which is all that validation looks at.
 */
async function slhDsaEntries(): Promise<Corpus['slhDsa']> {
  const entries: Corpus['slhDsa'] = [];
  for (const algorithm of ['slh-dsa-sha2-128f'] as SlhDsaAlgorithm[]) {
    const { n } = SLH_DSA_PARAMETERS[algorithm];
    const pair = await slhDsaKeygen(algorithm, { seed: corpusBytes(`${algorithm}/seed`, 3 * n) });
    const message = `message for ${algorithm}`;
    const context = 'fuzz context';
    const { signature } = await slhDsaSign(pair.secretKey, utf8(message), {
      algorithm,
      context: utf8(context),
      deterministic: true,
    });
    entries.push({
      algorithm,
      privateKey: toHex(pair.secretKey),
      publicKey: toHex(pair.publicKey),
      message,
      context,
      signature: toHex(signature),
    });
  }
  return entries;
}

async function mlKemEntries(): Promise<Corpus['mlKem']> {
  const entries: Corpus['mlKem'] = [];
  for (const algorithm of Object.keys(ML_KEM_PARAMETERS) as MlKemAlgorithm[]) {
    const spec = ML_KEM_PARAMETERS[algorithm];
    const seed = corpusBytes(`${algorithm}/seed`, 64);
    const pair = mlKemKeyPairFromSeed(seed, algorithm);
    const { ciphertext } = await mlKemEncapsulate(pair.publicKey, { randomness: corpusBytes(`${algorithm}/m`, 32) });
    entries.push({
      algorithm,
      publicKey: toHex(pair.publicKey),
      seed: toHex(seed),
      expanded: toHex(spec.noble.keygen(seed).secretKey),
      ciphertext: toHex(ciphertext),
    });
  }
  return entries;
}

async function xwingEntries(): Promise<Corpus['xwing']> {
  const entries: Corpus['xwing'] = [];
  for (const index of [0, 1]) {
    const pair = xwingKeyPairFromSeed(corpusBytes(`x-wing/${index}/seed`, 32));
    const encapsulation = await xwingEncapsulate(pair.publicKey, {
      encapsulationSeed: corpusBytes(`x-wing/${index}/eseed`, 64),
    });
    const sealed = await sealBoxPq({ publicKey: pair.publicKey }, utf8(`sealed for x-wing ${index}`));
    entries.push({
      privateKey: toHex(pair.secretKey),
      publicKey: toHex(pair.publicKey),
      x25519PublicKey: toHex(pair.x25519PublicKey),
      x25519PrivateKey: toHex(pair.x25519PrivateKey),
      mlKemPublicKey: toHex(pair.mlKemPublicKey),
      mlKemPrivateKey: toHex(pair.mlKemSecretKey),
      ciphertext: toHex(encapsulation.ciphertext),
      sealed: toBase64(sealed),
    });
  }
  return entries;
}

export async function buildCorpus(): Promise<Corpus> {
  const aeadKeys = [0, 1].map((index) => corpusBytes(`aead/${index}`, 32));
  // The last plaintext is not UTF-8: asked for as utf8 (the default), it must be a clean 400.
  const aeadBlobs = [
    { key: aeadKeys[0]!, plaintext: utf8('short message'), aad: undefined },
    { key: aeadKeys[1]!, plaintext: utf8('x'.repeat(3000)), aad: 'associated data' },
    { key: aeadKeys[0]!, plaintext: new Uint8Array([0xff, 0xfe, 0x00, 0xc3]), aad: undefined },
  ].map(({ key, plaintext, aad }, index) => ({
    key: toHex(key),
    ciphertext: toBase64(
      xchachaSeal(key, plaintext, aad === undefined ? undefined : utf8(aad), {
        nonce: corpusBytes(`aead/nonce/${index}`, 24),
      }),
    ),
    ...(aad === undefined ? {} : { aad }),
  }));
  const x25519 = [0, 1].map((index) => {
    const privateKey = corpusBytes(`x25519/${index}`, 32);
    return { privateKey: toHex(privateKey), publicKey: toHex(x25519PublicKeyOf(privateKey)) };
  });
  const sealedBoxes = x25519.map((pair, index) => ({
    privateKey: pair.privateKey,
    ciphertext: toBase64(sealBox(Buffer.from(pair.publicKey, 'hex'), utf8(`sealed for x25519 ${index}`))),
  }));
  const keyWraps = (
    [
      ['aes-kw', 16, 16],
      ['aes-kw', 32, 32],
      ['aes-kwp', 24, 5],
    ] as const
  ).map(([algorithm, kekLength, keyLength]) => {
    const kek = corpusBytes(`wrap/${algorithm}/${kekLength}/kek`, kekLength);
    const keyToWrap = corpusBytes(`wrap/${algorithm}/${kekLength}/key`, keyLength);
    return {
      algorithm,
      kek: toHex(kek),
      keyToWrap: toHex(keyToWrap),
      wrappedKey: toBase64(wrapKey(algorithm, kek, keyToWrap)),
    };
  });
  const hmacs = ['sha256', 'sha384', 'sha512', 'sha3-256', 'sha3-384', 'sha3-512'].map((hash) => {
    const key = corpusBytes(`hmac/${hash}`, 32);
    const data = `data for ${hash}`;
    return { algorithm: `hmac-${hash}`, key: toHex(key), data, mac: createHmac(hash, key).update(data).digest('hex') };
  });
  const xwing = await xwingEntries();
  const phcPassword = 'correct horse battery staple';
  const { hash } = await hashPassword(utf8(phcPassword), CHEAP_ARGON2, { salt: corpusBytes('argon2/salt', 16) });
  const passwordBlob = await encryptWithPassword(utf8(phcPassword), utf8('password-encrypted text'), {
    params: CHEAP_ARGON2,
    salt: corpusBytes('argon2/blob-salt', 16),
    nonce: corpusBytes('argon2/blob-nonce', 24),
  });
  const mlDsa = await mlDsaEntries();
  const slhDsa = await slhDsaEntries();
  const envelope = await multiRecipientEncrypt(utf8('for several recipients'), [
    { type: 'x25519', publicKey: Buffer.from(x25519[0]!.publicKey, 'hex') },
    { type: 'x25519-ml-kem-768', publicKey: Buffer.from(xwing[0]!.publicKey, 'hex') },
  ]);
  const signers = [
    ...(await classicalSigners()),
    ...mlDsa.map((entry) => ({
      algorithm: entry.algorithm,
      privateKey: entry.seed,
      privatePem: pem('PRIVATE KEY', postQuantumPrivateKeyDer(entry.algorithm, Buffer.from(entry.seed, 'hex'))),
      publicKey: entry.publicKey,
      publicPem: pem('PUBLIC KEY', postQuantumPublicKeyDer(entry.algorithm, Buffer.from(entry.publicKey, 'hex'))),
      message: entry.message,
      context: entry.context,
      signature: entry.signature,
    })),
    ...slhDsa.map((entry) => ({
      algorithm: entry.algorithm,
      privateKey: entry.privateKey,
      publicKey: entry.publicKey,
      message: entry.message,
      context: entry.context,
      signature: entry.signature,
    })),
  ];
  return {
    aeadKeys: aeadKeys.map(toHex),
    aeadBlobs,
    x25519,
    sealedBoxes,
    xwing,
    keyWraps,
    signers,
    hmacs,
    mlKem: await mlKemEntries(),
    mlDsa,
    slhDsa,
    phc: [{ password: phcPassword, hash }],
    passwordBlobs: [{ password: phcPassword, ciphertext: toBase64(passwordBlob) }],
    multiRecipient: [
      {
        ciphertext: toBase64(envelope.ciphertext),
        recipients: envelope.recipients.map((slot) => ({
          type: slot.type,
          enc: toBase64(slot.enc),
          wrappedKey: toBase64(slot.wrappedKey),
        })),
        credentials: [
          { privateKey: x25519[0]!.privateKey },
          { privateKey: xwing[0]!.privateKey },
          { x25519PrivateKey: xwing[0]!.x25519PrivateKey, mlKemPrivateKey: xwing[0]!.mlKemPrivateKey },
        ],
        publicKeys: [
          { type: 'x25519', publicKey: x25519[1]!.publicKey },
          { publicKey: x25519[0]!.publicKey },
          { type: 'x25519-ml-kem-768', publicKey: xwing[1]!.publicKey },
          { x25519PublicKey: xwing[0]!.x25519PublicKey, mlKemPublicKey: xwing[0]!.mlKemPublicKey },
        ],
      },
    ],
    v1: { ...V1_FIXTURES, symmetricPassphrase: SYMMETRIC_PASSPHRASE, detachedText: DETACHED_TEXT },
    foreignPrivatePems: Object.entries(FOREIGN_PEMS)
      .filter(([name]) => !name.endsWith('Public'))
      .map(([, value]) => value),
    foreignPublicPems: Object.entries(FOREIGN_PEMS)
      .filter(([name]) => name.endsWith('Public'))
      .map(([, value]) => value),
  };
}
