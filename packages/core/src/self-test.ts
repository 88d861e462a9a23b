/**
 * Start-up known-answer self-tests, in the manner of FIPS 140-3's pre-operational and conditional
 * algorithm self-tests (CASTs): one test per (family, id) pair of the algorithm registry, keyed
 * `family/id` (`hash/sha256`, `mac/hmac-sha256`, `signature/ml-dsa-65`, …). The server runs them before
 * it reports ready and disables any algorithm whose test fails.
 *
 * Each test calls the public function of the core module that the routes call, on a fixed input,
 * and compares with an expected answer that comes from outside this service's code
 * (self-test-vectors.ts says where each comes from). No expected value was computed with the
 * function under test.
 *
 * Randomized operations follow FIPS 140-3 IG 10.3.A: the test checks the deterministic part
 * (verification of a fixed signature, decapsulation of a fixed ciphertext, key generation from a
 * fixed seed) and, where it is cheap, adds a pairwise-consistency test (sign then verify,
 * encapsulate then decapsulate) through the same entry point that a request takes. Key
 * generation without a seed input is checked by pairwise consistency.
 *
 * The suite is kept cheap enough to run at every start. SLH-DSA signing, far too slow for that,
 * is never done; its test verifies a fixed signature instead (self-test-slh-dsa.json). Argon2id,
 * scrypt and PBKDF2 run with their published, tiny cost parameters through the functions without
 * floors (`*Raw`), which are the very functions the routes' checked entry points call.
 */
import { createHash } from 'node:crypto';
import { createPrivateKey, createPublicKey } from './node-crypto.ts';
import { xchachaOpen, xchachaSeal } from './aead.ts';
import { CryptoError } from './errors.ts';
import { digest } from './hash.ts';
import { DHKEM_X25519_HKDF_SHA256, hpkeOpen } from './hpke.ts';
import { deriveKey, hkdfRaw, KDF_ALGORITHMS, pbkdf2Raw, planKdf, scryptRaw } from './kdf.ts';
import {
  generateKeyMaterial,
  isKeyGenerationAlgorithm,
  isSymmetricKeyAlgorithm,
  type GeneratedKey,
} from './key-generation.ts';
import { unwrapKey, wrapKey } from './keywrap.ts';
import { computeHmac, verifyHmac } from './mac.ts';
import { mlDsaKeygen, ML_DSA_PARAMETERS, type MlDsaAlgorithm } from './ml-dsa.ts';
import { mlKemDecapsulate, mlKemEncapsulate, mlKemKeygen, ML_KEM_PARAMETERS, type MlKemAlgorithm } from './ml-kem.ts';
import { ARGON2_BACKEND, argon2Raw, PASSWORD_ENCRYPTION_ALGORITHM } from './password.ts';
import { MULTI_RECIPIENT_ALGORITHM } from './multi-recipient.ts';
import { ALGORITHM_REGISTRY, type AlgorithmFamily } from './registry.ts';
import { openBox, sealBox, sealedBoxX25519 } from './sealedbox.ts';
import { openBoxPq, PQ_SEALED_BOX, sealBoxPq } from './sealedbox-pq.ts';
import { SELF_TEST_VECTORS, type SelfTestVectors } from './self-test-vectors.ts';
import type { Jwk } from './key-format.ts';
import { okpPrivateKeyObject, X448_CURVE } from './okp.ts';
import { signMessage, verifySignature } from './signature.ts';
import { SLH_DSA_PARAMETERS, type SlhDsaAlgorithm } from './slh-dsa.ts';
import { x25519PublicKeyOf } from './x25519.ts';
import { XWING_ALGORITHM, xwingDecapsulate, xwingEncapsulate, xwingKeygen } from './xwing.ts';

/** One known-answer test: resolves when the algorithm gave the expected answers, throws otherwise. */
export type SelfTest = () => void | Promise<void>;

/** A failed known-answer test. The message names the check, never a secret: every input is a fixed public vector. */
export class SelfTestFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelfTestFailure';
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers

const bytes = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex, 'hex'));
const hexOf = (value: Uint8Array): string =>
  Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex');
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const sha256Hex = (value: Uint8Array): string => createHash('sha256').update(value).digest('hex');

function check(condition: boolean, what: string): asserts condition {
  if (!condition) throw new SelfTestFailure(what);
}

function expectHex(actual: Uint8Array, expected: string, what: string): void {
  check(hexOf(actual) === expected.toLowerCase(), `${what}: not the expected answer`);
}

/** The same bytes with the lowest bit of the first byte flipped: an input that must be refused. */
function flipped(value: Uint8Array): Uint8Array {
  const copy = value.slice();
  copy[0] = (copy[0] ?? 0) ^ 1;
  return copy;
}

async function expectDecryptionFailure(work: () => unknown, what: string): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof CryptoError && error.code === 'DECRYPTION_FAILED') return;
    throw error;
  }
  throw new SelfTestFailure(`${what}: a tampered input was accepted`);
}

const PCT_MESSAGE = utf8('crypto-service pairwise consistency test');

/** Pairwise consistency (FIPS 140-3 IG 10.3.A): a fresh signature verifies, and not for another message. */
async function signVerifyPct(
  algorithm: string,
  privateKey: Uint8Array,
  publicKey: Uint8Array,
  what: string,
): Promise<void> {
  const signature = await signMessage(algorithm, privateKey, PCT_MESSAGE);
  check(
    await verifySignature(algorithm, publicKey, PCT_MESSAGE, signature),
    `${what}: a fresh signature does not verify`,
  );
  check(
    !(await verifySignature(algorithm, publicKey, flipped(PCT_MESSAGE), signature)),
    `${what}: a signature verifies for another message`,
  );
}

/** A fixed signature verifies, and does not for another message. */
async function verifyKat(
  algorithm: string,
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
  what: string,
  context?: Uint8Array,
): Promise<void> {
  const options = context === undefined ? {} : { context };
  check(
    await verifySignature(algorithm, publicKey, message, signature, options),
    `${what}: the published signature does not verify`,
  );
  check(
    !(await verifySignature(algorithm, publicKey, flipped(message), signature, options)),
    `${what}: the published signature verifies for another message`,
  );
}

// ---------------------------------------------------------------------------------------------
// The tests, by family

type Vectors = Record<string, Record<string, string | number>>;

function vectorOf(vectors: Vectors, id: string): Record<string, string | number> {
  const vector = vectors[id];
  if (vector === undefined) throw new SelfTestFailure(`${id}: no known answer`);
  return vector;
}

function text(vector: Record<string, string | number>, field: string): string {
  const value = vector[field];
  if (typeof value !== 'string') throw new SelfTestFailure(`vector field ${field} is missing`);
  return value;
}

function number(vector: Record<string, string | number>, field: string): number {
  const value = vector[field];
  if (typeof value !== 'number') throw new SelfTestFailure(`vector field ${field} is missing`);
  return value;
}

function hashTest(id: string, algorithm: string, vectors: Vectors): SelfTest {
  return () => {
    const v = vectorOf(vectors, id);
    const input =
      typeof v.inputLength === 'number'
        ? Uint8Array.from({ length: v.inputLength }, (_, index) => index % 251)
        : bytes(text(v, 'message'));
    expectHex(digest(algorithm, input, typeof v.length === 'number' ? v.length : undefined), text(v, 'expected'), id);
  };
}

function macTest(id: string, algorithm: string, vectors: Vectors): SelfTest {
  return () => {
    const v = vectorOf(vectors, id);
    const key = bytes(text(v, 'key'));
    const data = bytes(text(v, 'data'));
    const expected = bytes(text(v, 'expected'));
    // Both backends that `auto` chooses between by message length (mac.ts).
    for (const backend of ['noble', 'native'] as const) {
      expectHex(computeHmac(algorithm, key, data, { backend }), text(v, 'expected'), `${id} (${backend})`);
      check(
        verifyHmac(algorithm, key, data, expected, { backend }),
        `${id} (${backend}): verification refuses the published MAC`,
      );
      check(
        !verifyHmac(algorithm, key, data, flipped(expected), { backend }),
        `${id} (${backend}): verification accepts a wrong MAC`,
      );
    }
  };
}

function aeadTest(id: string, vectors: Vectors): SelfTest {
  return async () => {
    const v = vectorOf(vectors, id);
    const key = bytes(text(v, 'key'));
    const nonce = bytes(text(v, 'nonce'));
    const aad = bytes(text(v, 'aad'));
    const plaintext = bytes(text(v, 'plaintext'));
    const expected = text(v, 'nonce') + text(v, 'expected');
    // Both backends that `auto` chooses between by message length (aead.ts).
    for (const backend of ['noble', 'native'] as const) {
      const sealed = xchachaSeal(key, plaintext, aad, { nonce, backend });
      expectHex(sealed, expected, `${id} (${backend}) seal`);
      expectHex(xchachaOpen(key, bytes(expected), aad, { backend }), text(v, 'plaintext'), `${id} (${backend}) open`);
      await expectDecryptionFailure(
        () => xchachaOpen(key, bytes(expected), flipped(aad), { backend }),
        `${id} (${backend})`,
      );
    }
  };
}

function kdfTest(id: string, algorithm: string, vectors: Vectors): SelfTest {
  return async () => {
    const v = vectorOf(vectors, id);
    const expected = text(v, 'expected');
    const length = expected.length / 2;
    let derived: Uint8Array;
    if (algorithm === 'scrypt') {
      derived = await scryptRaw(
        bytes(text(v, 'password')),
        bytes(text(v, 'salt')),
        { N: number(v, 'N'), r: number(v, 'r'), p: number(v, 'p') },
        length,
      );
    } else if (algorithm === 'pbkdf2-sha256') {
      derived = await pbkdf2Raw(
        'sha256',
        bytes(text(v, 'password')),
        bytes(text(v, 'salt')),
        number(v, 'iterations'),
        length,
      );
    } else {
      // HKDF through the route's own entry points (its vectors fit the route's bounds), then on
      // each of the two backends that `auto` chooses between by size (kdf.ts).
      const input = { ikm: bytes(text(v, 'ikm')), salt: bytes(text(v, 'salt')), info: bytes(text(v, 'info')) };
      derived = await deriveKey(
        planKdf({ algorithm, password: input.ikm, salt: input.salt, keyLength: length, params: { info: input.info } }),
      );
      const { hash } = KDF_ALGORITHMS[algorithm as keyof typeof KDF_ALGORITHMS] as { hash: string };
      for (const backend of ['noble', 'native'] as const) {
        expectHex(
          hkdfRaw(hash, input.ikm, input.salt, input.info, length, { backend }),
          expected,
          `${id} (${backend})`,
        );
      }
    }
    expectHex(derived, expected, id);
  };
}

function passwordTest(id: string, vectors: Vectors): SelfTest {
  return async () => {
    const v = vectorOf(vectors, id);
    const common = {
      variant: 'argon2id' as const,
      password: bytes(text(v, 'password')),
      salt: bytes(text(v, 'salt')),
      secret: bytes(text(v, 'secret')),
      tagLength: 32,
    };
    const params = { t: number(v, 't'), m: number(v, 'm'), p: number(v, 'p') };
    expectHex(await argon2Raw({ ...common, params }), text(v, 'expected'), id);
    if (ARGON2_BACKEND === 'native') {
      const rfc = await argon2Raw({
        ...common,
        params: { ...params, m: number(v, 'rfc9106Memory') },
        associatedData: bytes(text(v, 'rfc9106AssociatedData')),
      });
      expectHex(rfc, text(v, 'expectedRfc9106'), `${id} (RFC 9106 §5.3)`);
    }
  };
}

function keyWrapTest(id: string, algorithm: string, vectors: Vectors): SelfTest {
  return async () => {
    const v = vectorOf(vectors, id);
    const kek = bytes(text(v, 'kek'));
    const expected = bytes(text(v, 'expected'));
    expectHex(wrapKey(algorithm, kek, bytes(text(v, 'key'))), text(v, 'expected'), `${id} wrap`);
    expectHex(unwrapKey(algorithm, kek, expected), text(v, 'key'), `${id} unwrap`);
    await expectDecryptionFailure(() => unwrapKey(algorithm, kek, flipped(expected)), `${id} unwrap`);
  };
}

function sealedBoxTest(id: string, vectors: Vectors): SelfTest {
  return async () => {
    const v = vectorOf(vectors, id);
    const secretKey = bytes(text(v, 'secretKey'));
    const sealed = bytes(text(v, 'sealed'));
    expectHex(openBox(secretKey, sealed), text(v, 'expectedPlaintext'), `${id} open`);
    await expectDecryptionFailure(() => openBox(secretKey, flipped(sealed)), `${id} open`);
    // Sealing is randomized: pairwise consistency with the vector's key pair.
    const resealed = sealBox(bytes(text(v, 'publicKey')), PCT_MESSAGE);
    check(hexOf(openBox(secretKey, resealed)) === hexOf(PCT_MESSAGE), `${id}: a freshly sealed box does not open`);
  };
}

function pqSealedBoxTest(id: string, vectors: Vectors): SelfTest {
  return async () => {
    const v = vectorOf(vectors, id);
    const privateKey = bytes(text(v, 'seed'));
    const sealed = bytes(text(v, 'sealed'));
    expectHex(await openBoxPq({ privateKey }, sealed), text(v, 'expectedPlaintext'), `${id} open`);
    const tampered = sealed.slice();
    tampered[tampered.length - 1] = (tampered[tampered.length - 1] ?? 0) ^ 1;
    await expectDecryptionFailure(() => openBoxPq({ privateKey }, tampered), `${id} open`);
    const { publicKey } = await xwingKeygen({ seed: privateKey });
    const resealed = await sealBoxPq({ publicKey }, PCT_MESSAGE);
    check(
      hexOf(await openBoxPq({ privateKey }, resealed)) === hexOf(PCT_MESSAGE),
      `${id}: a freshly sealed box does not open`,
    );
  };
}

function x25519KemTest(id: string, vectors: Vectors): SelfTest {
  return async () => {
    const v = vectorOf(vectors, id);
    const privateKey = bytes(text(v, 'privateKey'));
    expectHex(x25519PublicKeyOf(privateKey), text(v, 'expectedPublicKey'), `${id} public key`);
    expectHex(
      sealedBoxX25519(privateKey, bytes(text(v, 'peerPublicKey'))),
      text(v, 'expectedSharedSecret'),
      `${id} shared secret`,
    );
    const opened = await hpkeOpen(
      DHKEM_X25519_HKDF_SHA256,
      bytes(text(v, 'hpkeRecipientKey')),
      bytes(text(v, 'hpkeEnc')),
      bytes(text(v, 'hpkeInfo')),
      bytes(text(v, 'hpkeAad')),
      bytes(text(v, 'hpkeCiphertext')),
    );
    expectHex(opened, text(v, 'expectedHpkePlaintext'), `${id} HPKE (RFC 9180 A.2.1)`);
  };
}

/** ML-KEM: key generation from the seed, decapsulation of the published ciphertext, then encapsulate/decapsulate. */
async function mlKemKat(
  id: string,
  algorithm: MlKemAlgorithm,
  v: Record<string, string | number>,
): Promise<{ publicKey: Uint8Array; seed: Uint8Array }> {
  const seed = bytes(text(v, 'seed'));
  const { publicKey } = await mlKemKeygen(algorithm, { seed });
  check(
    sha256Hex(publicKey) === text(v, 'expectedPublicKeySha256'),
    `${id}: the key generated from the seed is not the published one`,
  );
  const { sharedSecret } = await mlKemDecapsulate(seed, bytes(text(v, 'ciphertext')), algorithm);
  expectHex(sharedSecret, text(v, 'expectedSharedSecret'), `${id} decapsulation`);
  return { publicKey, seed };
}

async function mlKemPct(
  id: string,
  publicKey: Uint8Array,
  secretKey: Uint8Array,
  algorithm: MlKemAlgorithm,
): Promise<void> {
  const encapsulated = await mlKemEncapsulate(publicKey);
  const decapsulated = await mlKemDecapsulate(secretKey, encapsulated.ciphertext, algorithm);
  check(
    hexOf(decapsulated.sharedSecret) === hexOf(encapsulated.sharedSecret),
    `${id}: encapsulation and decapsulation disagree`,
  );
}

function mlKemTest(id: string, algorithm: MlKemAlgorithm, vectors: Vectors, vectorId = id): SelfTest {
  return async () => {
    const { publicKey, seed } = await mlKemKat(id, algorithm, vectorOf(vectors, vectorId));
    await mlKemPct(id, publicKey, seed, algorithm);
  };
}

async function xwingKat(id: string, v: Record<string, string | number>): Promise<void> {
  const seed = bytes(text(v, 'seed'));
  const { publicKey } = await xwingKeygen({ seed });
  check(
    sha256Hex(publicKey) === text(v, 'expectedPublicKeySha256'),
    `${id}: the key generated from the seed is not the published one`,
  );
  expectHex(
    (await xwingDecapsulate(seed, bytes(text(v, 'ciphertext')))).sharedSecret,
    text(v, 'expectedSharedSecret'),
    `${id} decapsulation`,
  );
}

async function xwingPct(id: string, publicKey: Uint8Array, secretKey: Uint8Array): Promise<void> {
  const encapsulated = await xwingEncapsulate(publicKey);
  const decapsulated = await xwingDecapsulate(secretKey, encapsulated.ciphertext);
  check(
    hexOf(decapsulated.sharedSecret) === hexOf(encapsulated.sharedSecret),
    `${id}: encapsulation and decapsulation disagree`,
  );
}

function xwingTest(id: string, vectors: Vectors, vectorId = id): SelfTest {
  return async () => {
    const v = vectorOf(vectors, vectorId);
    await xwingKat(id, v);
    const seed = bytes(text(v, 'seed'));
    await xwingPct(id, (await xwingKeygen({ seed })).publicKey, seed);
  };
}

function eddsaTest(id: string, algorithm: 'ed25519' | 'ed448', vectors: Vectors): SelfTest {
  return async () => {
    const v = vectorOf(vectors, id);
    const privateKey = bytes(text(v, 'privateKey'));
    const publicKey = bytes(text(v, 'publicKey'));
    const message = bytes(text(v, 'message'));
    expectHex(await signMessage(algorithm, privateKey, message), text(v, 'expectedSignature'), `${id} sign`);
    await verifyKat(algorithm, publicKey, message, bytes(text(v, 'expectedSignature')), id);
    if (typeof v.context === 'string') {
      // Ed448 with a context takes another path where the runtime ignores contexts (Node 22: @noble/curves).
      const context = bytes(v.context);
      expectHex(
        await signMessage(algorithm, privateKey, message, { context }),
        text(v, 'expectedContextSignature'),
        `${id} sign with context`,
      );
      await verifyKat(
        algorithm,
        publicKey,
        message,
        bytes(text(v, 'expectedContextSignature')),
        `${id} with context`,
        context,
      );
    }
  };
}

function ecdsaTest(id: string, algorithm: 'ecdsa-p256' | 'ecdsa-p384', vectors: Vectors): SelfTest {
  return async () => {
    const v = vectorOf(vectors, id);
    const publicKey = bytes(text(v, 'publicKey'));
    // ECDSA signing is randomized here (OpenSSL): verify RFC 6979's deterministic signature, then
    // a fresh one made with the same private key.
    await verifyKat(algorithm, publicKey, bytes(text(v, 'message')), bytes(text(v, 'expectedSignature')), id);
    await signVerifyPct(algorithm, bytes(text(v, 'privateKey')), publicKey, id);
  };
}

async function mlDsaKat(
  id: string,
  algorithm: MlDsaAlgorithm,
  v: Record<string, string | number>,
): Promise<{ seed: Uint8Array; publicKey: Uint8Array }> {
  const seed = bytes(text(v, 'seed'));
  const { publicKey } = await mlDsaKeygen(algorithm, { seed });
  check(
    sha256Hex(publicKey) === text(v, 'expectedPublicKeySha256'),
    `${id}: the key generated from the seed is not the published one`,
  );
  return { seed, publicKey };
}

function mlDsaTest(id: string, algorithm: MlDsaAlgorithm, vectors: Vectors, vectorId = id): SelfTest {
  return async () => {
    const v = vectorOf(vectors, vectorId);
    const { seed, publicKey } = await mlDsaKat(id, algorithm, v);
    await verifyKat(algorithm, publicKey, bytes(text(v, 'message')), bytes(text(v, 'expectedSignature')), id);
    // Signing is hedged (fresh randomness): pairwise consistency through the signature entry point.
    await signVerifyPct(algorithm, seed, publicKey, id);
  };
}

/**
 * The SLH-DSA verification KAT, run once per vectors object and parameter set: key generation's test
 * is the same check (see slhDsaKeyTest), and in pure JavaScript each run is costly.
 */
const slhDsaRuns = new WeakMap<Vectors, Map<SlhDsaAlgorithm, Promise<void>>>();

function slhDsaVerifyOnce(algorithm: SlhDsaAlgorithm, vectors: Vectors): Promise<void> {
  let runs = slhDsaRuns.get(vectors);
  if (runs === undefined) slhDsaRuns.set(vectors, (runs = new Map()));
  let run = runs.get(algorithm);
  if (run === undefined) {
    const id = `signature/${algorithm}`;
    run = (async () => {
      const v = vectorOf(vectors, id);
      const signature = Buffer.from(text(v, 'expectedSignature'), 'base64');
      await verifyKat(
        algorithm,
        bytes(text(v, 'publicKey')),
        utf8(text(v, 'message')),
        new Uint8Array(signature),
        id,
        utf8(text(v, 'context')),
      );
    })();
    runs.set(algorithm, run);
  }
  return run;
}

function slhDsaTest(algorithm: SlhDsaAlgorithm, vectors: Vectors): SelfTest {
  return () => slhDsaVerifyOnce(algorithm, vectors);
}

// ---------------------------------------------------------------------------------------------
// Key generation: a fresh key (the route's entry point, generateKeyMaterial) and what can be
// checked of it, plus the deterministic part where the algorithm has one.

function rawPair(key: GeneratedKey, id: string): { publicKey: Uint8Array; privateKey: Uint8Array } {
  check(
    key.kind === 'pair' && key.publicKey instanceof Uint8Array && key.privateKey instanceof Uint8Array,
    `${id}: not a raw key pair`,
  );
  return { publicKey: key.publicKey as Uint8Array, privateKey: key.privateKey as Uint8Array };
}

/** The X448 public key of a private key, by node:crypto's own import (the generator is OpenSSL's). */
function x448PublicKeyOf(privateKey: Uint8Array): Uint8Array {
  const jwk = createPublicKey(okpPrivateKeyObject(X448_CURVE, privateKey)).export({ format: 'jwk' }) as Jwk;
  return new Uint8Array(Buffer.from(jwk.x ?? '', 'base64url'));
}

function keyAgreementKeyTest(id: string, algorithm: 'x25519' | 'x448', vectors: Vectors): SelfTest {
  const publicKeyOf = algorithm === 'x25519' ? x25519PublicKeyOf : x448PublicKeyOf;
  return async () => {
    const v = vectorOf(vectors, id);
    expectHex(publicKeyOf(bytes(text(v, 'privateKey'))), text(v, 'expectedPublicKey'), `${id} public key`);
    // Pairwise consistency of a fresh pair: its public key is the one of its private key.
    const pair = rawPair(await generateKeyMaterial(algorithm), id);
    check(
      hexOf(publicKeyOf(pair.privateKey)) === hexOf(pair.publicKey),
      `${id}: a generated public key does not match its private key`,
    );
    // And the JWK export names the same key (the PEM/JWK forms go through node:crypto's import).
    const jwk = await generateKeyMaterial(algorithm, 'jwk');
    check(
      jwk.kind === 'pair' && typeof jwk.privateKey === 'object' && !(jwk.privateKey instanceof Uint8Array),
      `${id}: no JWK pair`,
    );
    const exported = createPublicKey(createPrivateKey({ key: jwk.privateKey as Jwk, format: 'jwk' })).export({
      format: 'jwk',
    }) as Jwk;
    check(exported.x === (jwk.publicKey as Jwk).x, `${id}: a generated JWK pair does not match`);
  };
}

function signatureKeyTest(id: string, algorithm: string): SelfTest {
  return async () => {
    const pair = rawPair(await generateKeyMaterial(algorithm), id);
    await signVerifyPct(algorithm, pair.privateKey, pair.publicKey, id);
  };
}

/** A symmetric key: the right length, not constant, not repeated, and usable by the algorithm it is for. */
function symmetricKeyTest(id: string, algorithm: string): SelfTest {
  return async () => {
    const keys: Uint8Array[] = [];
    for (let i = 0; i < 2; i++) {
      const generated = await generateKeyMaterial(algorithm);
      check(generated.kind === 'secret' && generated.key instanceof Uint8Array, `${id}: not a raw key`);
      keys.push(generated.key as Uint8Array);
    }
    const [first, second] = keys as [Uint8Array, Uint8Array];
    check(hexOf(first) !== hexOf(second), `${id}: two generated keys are equal`);
    check(
      first.some((byte) => byte !== first[0]),
      `${id}: a generated key is constant`,
    );
    if (algorithm === 'xchacha20-poly1305') {
      check(
        hexOf(xchachaOpen(first, xchachaSeal(first, PCT_MESSAGE))) === hexOf(PCT_MESSAGE),
        `${id}: the key does not round-trip`,
      );
    } else if (algorithm.startsWith('aes-')) {
      check(
        hexOf(unwrapKey('aes-kw', first, wrapKey('aes-kw', first, second.subarray(0, 16)))) ===
          hexOf(second.subarray(0, 16)),
        `${id}: the key does not round-trip`,
      );
    } else {
      check(
        verifyHmac(algorithm, first, PCT_MESSAGE, computeHmac(algorithm, first, PCT_MESSAGE)),
        `${id}: the key does not verify its own MAC`,
      );
    }
  };
}

function mlKemKeyTest(id: string, algorithm: MlKemAlgorithm, vectors: Vectors): SelfTest {
  return async () => {
    await mlKemKat(id, algorithm, vectorOf(vectors, `mlKem/${algorithm}`));
    const pair = rawPair(await generateKeyMaterial(algorithm), id);
    await mlKemPct(id, pair.publicKey, pair.privateKey, algorithm);
  };
}

function xwingKeyTest(id: string, vectors: Vectors): SelfTest {
  return async () => {
    await xwingKat(id, vectorOf(vectors, HYBRID_KEM_VECTOR));
    const pair = rawPair(await generateKeyMaterial(XWING_ALGORITHM), id);
    await xwingPct(id, pair.publicKey, pair.privateKey);
  };
}

function mlDsaKeyTest(id: string, algorithm: MlDsaAlgorithm, vectors: Vectors): SelfTest {
  return async () => {
    await mlDsaKat(id, algorithm, vectorOf(vectors, `signature/${algorithm}`));
    const pair = rawPair(await generateKeyMaterial(algorithm), id);
    await signVerifyPct(algorithm, pair.privateKey, pair.publicKey, id);
  };
}

/**
 * SLH-DSA key generation has no cheap test: node:crypto takes no seed, and generating a key costs
 * what it costs to build the top XMSS tree (too slow for every start with the `s` sets), and a
 * pairwise test would add a signature. Its test is therefore the verification
 * KAT of the same parameter set (run once, shared with `signature/…`), which exercises the set's
 * hash functions and recomputes the PK.root that key generation builds; a backend that fails it
 * disables key generation of that set too.
 */
function slhDsaKeyTest(algorithm: SlhDsaAlgorithm, vectors: Vectors): SelfTest {
  return slhDsaTest(algorithm, vectors);
}

/**
 * A composite's test: the tests of the registry algorithms it is built from, one after another (the
 * password envelope, the multi-recipient envelope).
 */
function composite(...tests: SelfTest[]): SelfTest {
  return async () => {
    for (const test of tests) await test();
  };
}

// ---------------------------------------------------------------------------------------------
// The table

const AEAD_VECTOR = 'aead/xchacha20-poly1305';
const HYBRID_KEM_VECTOR = `hybridKem/${XWING_ALGORITHM}`;
const X25519_KEM_VECTOR = 'recipientType/x25519';

const isMlKem = (id: string): id is MlKemAlgorithm => Object.hasOwn(ML_KEM_PARAMETERS, id);
const isMlDsa = (id: string): id is MlDsaAlgorithm => Object.hasOwn(ML_DSA_PARAMETERS, id);
const isSlhDsa = (id: string): id is SlhDsaAlgorithm => Object.hasOwn(SLH_DSA_PARAMETERS, id);

function testFor(family: AlgorithmFamily, algorithm: string, vectors: Vectors): SelfTest | undefined {
  const id = `${family}/${algorithm}`;
  switch (family) {
    case 'hash':
      return hashTest(id, algorithm, vectors);
    case 'mac':
      return macTest(id, algorithm, vectors);
    case 'aead':
      return algorithm === 'xchacha20-poly1305' ? aeadTest(id, vectors) : undefined;
    case 'kdf':
      return kdfTest(id, algorithm, vectors);
    case 'password':
      return algorithm === 'argon2id' ? passwordTest(id, vectors) : undefined;
    case 'keyWrap':
      return keyWrapTest(id, algorithm, vectors);
    case 'passwordEncryption':
      return algorithm === PASSWORD_ENCRYPTION_ALGORITHM
        ? composite(passwordTest('password/argon2id', vectors), aeadTest(AEAD_VECTOR, vectors))
        : undefined;
    case 'sealedBox':
      return algorithm === 'x25519-xsalsa20-poly1305' ? sealedBoxTest(id, vectors) : undefined;
    case 'pqSealedBox':
      return algorithm === PQ_SEALED_BOX ? pqSealedBoxTest(id, vectors) : undefined;
    case 'multiRecipient':
      return algorithm === MULTI_RECIPIENT_ALGORITHM
        ? composite(
            aeadTest(AEAD_VECTOR, vectors),
            x25519KemTest(X25519_KEM_VECTOR, vectors),
            xwingTest(HYBRID_KEM_VECTOR, vectors),
          )
        : undefined;
    case 'recipientType':
      if (algorithm === 'x25519') return x25519KemTest(id, vectors);
      return algorithm === XWING_ALGORITHM ? xwingTest(id, vectors, HYBRID_KEM_VECTOR) : undefined;
    case 'mlKem':
      return isMlKem(algorithm) ? mlKemTest(id, algorithm, vectors) : undefined;
    case 'hybridKem':
      return algorithm === XWING_ALGORITHM ? xwingTest(id, vectors) : undefined;
    case 'signature':
      if (algorithm === 'ed25519' || algorithm === 'ed448') return eddsaTest(id, algorithm, vectors);
      if (algorithm === 'ecdsa-p256' || algorithm === 'ecdsa-p384') return ecdsaTest(id, algorithm, vectors);
      if (isMlDsa(algorithm)) return mlDsaTest(id, algorithm, vectors);
      return isSlhDsa(algorithm) ? slhDsaTest(algorithm, vectors) : undefined;
    case 'mlDsa':
      return isMlDsa(algorithm) ? mlDsaTest(id, algorithm, vectors, `signature/${algorithm}`) : undefined;
    case 'slhDsa':
      return isSlhDsa(algorithm) ? slhDsaTest(algorithm, vectors) : undefined;
    case 'keyGeneration':
      if (algorithm === 'x25519' || algorithm === 'x448') return keyAgreementKeyTest(id, algorithm, vectors);
      if (algorithm === 'ed25519' || algorithm === 'ed448' || algorithm === 'ecdsa-p256' || algorithm === 'ecdsa-p384')
        return signatureKeyTest(id, algorithm);
      if (isMlKem(algorithm)) return mlKemKeyTest(id, algorithm, vectors);
      if (algorithm === XWING_ALGORITHM) return xwingKeyTest(id, vectors);
      if (isMlDsa(algorithm)) return mlDsaKeyTest(id, algorithm, vectors);
      if (isSlhDsa(algorithm)) return slhDsaKeyTest(algorithm, vectors);
      return isKeyGenerationAlgorithm(algorithm) && isSymmetricKeyAlgorithm(algorithm)
        ? symmetricKeyTest(id, algorithm)
        : undefined;
  }
}

/**
 * The order in which the suite runs: the cheap, much-used families first, so that they are
 * available soonest while the rest runs; SLH-DSA last within its families (see file comment).
 */
const FAMILY_ORDER: readonly AlgorithmFamily[] = [
  'hash',
  'mac',
  'aead',
  'kdf',
  'keyWrap',
  'password',
  'passwordEncryption',
  'sealedBox',
  'recipientType',
  'mlKem',
  'hybridKem',
  'pqSealedBox',
  'multiRecipient',
  'signature',
  'mlDsa',
  'slhDsa',
  'keyGeneration',
];

/** Every (family, id) pair of the registry as `family/id`, in the order the suite runs them. */
export function selfTestIds(): string[] {
  const families = [
    ...FAMILY_ORDER,
    ...(Object.keys(ALGORITHM_REGISTRY) as AlgorithmFamily[]).filter((family) => !FAMILY_ORDER.includes(family)),
  ];
  return families.flatMap((family) => ALGORITHM_REGISTRY[family].map((algorithm) => `${family}/${algorithm}`));
}

/**
 * The known-answer test of every registry pair, reading its expected answers from `vectors` (the
 * published ones by default). A pair that this file does not know gets no entry, and the suite
 * reports it as failed: a new algorithm cannot be offered without its test.
 */
export function createSelfTests(vectors: SelfTestVectors | Vectors = SELF_TEST_VECTORS): Record<string, SelfTest> {
  const table: Record<string, SelfTest> = {};
  for (const family of Object.keys(ALGORITHM_REGISTRY) as AlgorithmFamily[]) {
    for (const algorithm of ALGORITHM_REGISTRY[family]) {
      const test = testFor(family, algorithm, vectors as Vectors);
      if (test !== undefined) table[`${family}/${algorithm}`] = test;
    }
  }
  return table;
}

export const SELF_TESTS: Readonly<Record<string, SelfTest>> = Object.freeze(createSelfTests());

export interface SelfTestOutcome {
  readonly id: string;
  readonly passed: boolean;
  readonly durationMs: number;
  /** Why it failed: the check's own message (no secret: every input is a fixed public vector). */
  readonly error?: string;
}

/** Runs one test and reports its outcome; never throws. */
export async function runSelfTest(id: string, test: SelfTest | undefined): Promise<SelfTestOutcome> {
  const started = performance.now();
  try {
    if (test === undefined) throw new SelfTestFailure(`${id}: no known-answer test`);
    await test();
    return { id, passed: true, durationMs: performance.now() - started };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { id, passed: false, durationMs: performance.now() - started, error: message };
  }
}

/** Lets the event loop run between two tests, so that a process serving requests stays responsive. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Runs every pair's test, one after another in selfTestIds() order, yielding to the event loop
 * between tests. `overrides` replace individual tests (by `family/id`).
 */
export async function runSelfTests(
  options: { tests?: Readonly<Record<string, SelfTest>>; overrides?: Readonly<Record<string, SelfTest>> } = {},
): Promise<SelfTestOutcome[]> {
  const tests = options.tests ?? SELF_TESTS;
  const outcomes: SelfTestOutcome[] = [];
  for (const id of selfTestIds()) {
    const test =
      options.overrides !== undefined && Object.hasOwn(options.overrides, id) ? options.overrides[id] : tests[id];
    outcomes.push(await runSelfTest(id, test));
    await nextTurn();
  }
  return outcomes;
}
