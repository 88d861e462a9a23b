/**
 * Start-up known-answer self-tests, in the manner of FIPS 140-3's pre-operational and conditional
 * algorithm self-tests (CASTs): one test per (family, id) pair of the algorithm registry, keyed
 * `family/id` (`hash/sha256`, `mac/sha256`, `signature/ml-dsa-65`, …). The server runs them before
 * it reports ready and disables any algorithm whose test fails.
 *
 * Each test calls the public function of the core module that the routes call, on a fixed input,
 * and compares with an expected answer that comes from outside this service's code: a published
 * vector (RFC, FIPS, NIST example, Wycheproof, IETF draft), or, where none exists for the exact
 * operation, an answer computed with an independent implementation (named in the comment). No
 * expected value was computed with the function under test.
 *
 * Randomized operations follow FIPS 140-3 IG 10.3.A: the test checks the deterministic part
 * (verification of a fixed signature, decapsulation of a fixed ciphertext, key generation from a
 * fixed seed) and, where it is cheap, adds a pairwise-consistency test (sign then verify,
 * encapsulate then decapsulate) through the same entry point that a request takes. Key
 * generation without a seed input is checked by pairwise consistency.
 *
 * Cost: the whole suite takes about 0.25 s of CPU natively (Node 24) and about 1.5 s where the
 * post-quantum schemes are pure JavaScript (Node 22). The costs that shaped it:
 * SLH-DSA signing (12 ms to 2 s natively, seconds in pure JavaScript) is never done; its test
 * verifies a fixed signature instead (self-test-slh-dsa.json). Argon2id, scrypt and PBKDF2 run with
 * their published, tiny cost parameters through the functions without floors (`*Raw`), which
 * are the very functions the routes' checked entry points call.
 */
import { createHash } from 'node:crypto';
import { createPrivateKey, createPublicKey } from './node-crypto.ts';
import { xchachaOpen, xchachaSeal } from './aead.ts';
import { CryptoError } from './errors.ts';
import { digest } from './hash.ts';
import { DHKEM_X25519_HKDF_SHA256, hpkeOpen } from './hpke.ts';
import { deriveKey, hkdfRaw, KDF_ALGORITHMS, pbkdf2Raw, planKdf, scryptRaw } from './kdf.ts';
import { generateKeyMaterial, isKeyGenerationAlgorithm, isSymmetricKeyAlgorithm, type GeneratedKey } from './keys.ts';
import { unwrapKey, wrapKey } from './keywrap.ts';
import { computeHmac, verifyHmac } from './mac.ts';
import { mlDsaKeygen, ML_DSA_PARAMETERS, type MlDsaAlgorithm } from './ml-dsa.ts';
import { mlKemDecapsulate, mlKemEncapsulate, mlKemKeygen, ML_KEM_PARAMETERS, type MlKemAlgorithm } from './ml-kem.ts';
import { ARGON2_BACKEND, argon2Raw } from './password.ts';
import { ALGORITHM_REGISTRY, type AlgorithmFamily } from './registry.ts';
import { openBox, sealBox, sealedBoxX25519 } from './sealedbox.ts';
import { openBoxPq, PQ_SEALED_BOX, sealBoxPq } from './sealedbox-pq.ts';
import {
  ML_DSA_SELF_TEST_VECTORS,
  ML_KEM_SELF_TEST_VECTORS,
  PQ_SEALED_BOX_SELF_TEST_VECTOR,
  XWING_SELF_TEST_VECTOR,
  type MlDsaSelfTestVector,
  type MlKemSelfTestVector,
} from './self-test-pq-vectors.ts';
/*
 * SLH-DSA: for each of the twelve FIPS 205 parameter sets, a public key and a signature of "abc"
 * under the context "crypto-service self-test", which the self-test verifies. No ACVP or Wycheproof
 * SLH-DSA vectors are among the project's published vectors (../shared/vectors), so they come from
 * an implementation independent of the native backend, @noble/post-quantum 0.7.1, in FIPS 205's
 * deterministic mode (keys from slh_keygen_internal(seed) with seed = the bytes 0, 1, …, 3n − 1;
 * sign(message, secretKey, { context, extraEntropy: false })), and every signature was checked
 * with a second implementation, OpenSSL 3.5 (node:crypto on Node 24): two implementations agree,
 * neither of them this service's code. The signatures are 7,856 to 49,856 bytes (base64 in the
 * file), hence JSON: a TypeScript module of that size costs ~100 ms of type stripping at every
 * start, the JSON ~4 ms.
 */
import SLH_DSA_SELF_TEST_DATA from './self-test-slh-dsa.json' with { type: 'json' };
import { okpPrivateKeyObject, signMessage, verifySignature, type Jwk, type OkpCurve } from './signature.ts';
import { SLH_DSA_PARAMETERS, type SlhDsaAlgorithm } from './slh-dsa.ts';
import { XWING_ALGORITHM, x25519PublicKeyOf, xwingDecapsulate, xwingEncapsulate, xwingKeygen } from './xwing.ts';

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
const hexOf = (value: Uint8Array): string => Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex');
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
async function signVerifyPct(algorithm: string, privateKey: Uint8Array, publicKey: Uint8Array, what: string): Promise<void> {
  const signature = await signMessage(algorithm, privateKey, PCT_MESSAGE);
  check(await verifySignature(algorithm, publicKey, PCT_MESSAGE, signature), `${what}: a fresh signature does not verify`);
  check(!(await verifySignature(algorithm, publicKey, flipped(PCT_MESSAGE), signature)), `${what}: a signature verifies for another message`);
}

/** A fixed signature verifies, and does not for another message. */
async function verifyKat(algorithm: string, publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array, what: string, context?: Uint8Array): Promise<void> {
  const options = context === undefined ? {} : { context };
  check(await verifySignature(algorithm, publicKey, message, signature, options), `${what}: the published signature does not verify`);
  check(!(await verifySignature(algorithm, publicKey, flipped(message), signature, options)), `${what}: the published signature verifies for another message`);
}

// ---------------------------------------------------------------------------------------------
// The expected answers (the post-quantum ones are in self-test-pq-vectors.ts and
// self-test-slh-dsa.json). Fields whose name starts with `expected` are the published answers.

const ABC = '616263';

/** RFC 4231 §4.3 (test case 2): key "Jefe", data "what do ya want for nothing?". */
const RFC4231_KEY = '4a656665';
const RFC4231_DATA = '7768617420646f2079612077616e7420666f72206e6f7468696e673f';

/** RFC 7748 §6.1 (X25519) and §6.2 (X448): Alice's and Bob's keys and their shared secret. */
const RFC7748 = {
  x25519: {
    alicePrivate: '77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a',
    alicePublic: '8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a',
    bobPrivate: '5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb',
    bobPublic: 'de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f',
    shared: '4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742',
  },
  x448: {
    alicePrivate: '9a8f4925d1519f5775cf46b04b5800d4ee9ee8bae8bc5565d498c28dd9c9baf574a9419744897391006382a6f127ab1d9ac2d8c0a598726b',
    alicePublic: '9b08f7cc31b7e3e67d22d5aea121074a273bd2b83de09c63faa73d2c22c5d9bbc836647241d953d40c5b12da88120d53177f80e532c41fa0',
  },
} as const;

/** RFC 6979 A.2.5 (P-256) and A.2.6 (P-384): key pair, and the deterministic signature of "sample" (r ‖ s). */
const RFC6979 = {
  'ecdsa-p256': {
    privateKey: 'c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721',
    publicKey: '0460fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb67903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299',
    message: '73616d706c65',
    expectedSignature: 'efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8',
  },
  'ecdsa-p384': {
    privateKey: '6b9d3dad2e1b8c1c05b19875b6659f4de23c3b667bf297ba9aa47740787137d896d5724e4c70a825f872c9ea60d2edf5',
    publicKey: '04ec3a4e415b4e19a4568618029f427fa5da9a8bc4ae92e02e06aae5286b300c64def8f0ea9055866064a254515480bc138015d9b72d7d57244ea8ef9ac0c621896708a59367f9dfb9f54ca84b3f1c9db1288b231c3ae0d4fe7344fd2533264720',
    message: '73616d706c65',
    expectedSignature: '94edbb92a5ecb8aad4736e56c691916b3f88140666ce9fa73d64c4ea95ad133c81a648152e44acf96e36dd1e80fabe4699ef4aeb15f178cea1fe40db2603138f130e740a19624526203b6351d0a3a94fa329c145786e679e7b82c71a38628ac8',
  },
} as const;

/**
 * Every expected answer, by the test that uses it. Tests take them from this object (a parameter of
 * createSelfTests), so that a test can hand in a corrupted copy and see the one test fail.
 */
export const SELF_TEST_VECTORS = {
  // FIPS 180-4 / FIPS 202 (NIST CSRC "Examples with intermediate values"): the digests of "abc".
  'hash/sha256': { message: ABC, expected: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad' },
  'hash/sha384': { message: ABC, expected: 'cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7' },
  'hash/sha512': { message: ABC, expected: 'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f' },
  'hash/sha512-256': { message: ABC, expected: '53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23' },
  'hash/sha3-256': { message: ABC, expected: '3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532' },
  'hash/sha3-384': { message: ABC, expected: 'ec01498288516fc926459f58e2c6ad8df9b473cb0fc08c2596da7cf0e49be4b298d88cea927ac7f539f1edf228376d25' },
  'hash/sha3-512': { message: ABC, expected: 'b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0' },
  // FIPS 202 examples: SHAKE128("abc") to 256 bits, SHAKE256("abc") to 512 bits.
  'hash/shake128': { message: ABC, length: 32, expected: '5881092dd818bf5cf8a3ddb793fbcba74097d5c526a6d35f97b83351940f2cc8' },
  'hash/shake256': { message: ABC, length: 64, expected: '483366601360a8771c6863080cc4114d8db44530f8f1e1ee4f94ea37e78b5739d5a15bef186a5386c75744c0527e1faa9f8726e462a12a4feb06bd8801e751e4' },
  // RFC 7693 has no BLAKE2b-256 example: BLAKE2b-256("abc") as computed by two independent
  // implementations that agree, hash-wasm (blake2b, 256 bits) and GNU coreutils' `b2sum -l 256`.
  'hash/blake2b-256': { message: ABC, expected: 'bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319' },
  // RFC 7693 Appendix A: BLAKE2b-512("abc"). `blake2b` is an alias of the same function.
  'hash/blake2b-512': { message: ABC, expected: 'ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923' },
  'hash/blake2b': { message: ABC, expected: 'ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923' },
  // BLAKE3 official test vectors (BLAKE3-team/BLAKE3 test_vectors/test_vectors.json): input_len 1025
  // (bytes i mod 251, so two chunks), extended output of 131 bytes.
  'hash/blake3': {
    inputLength: 1025,
    length: 131,
    expected: 'd00278ae47eb27b34faecf67b4fe263f82d5412916c1ffd97c8cb7fb814b8444f4c4a22b4b399155358a994e52bf255de60035742ec71bd08ac275a1b51cc6bfe332b0ef84b409108cda080e6269ed4b3e2c3f7d722aa4cdc98d16deb554e5627be8f955c98e1d5f9565a9194cad0c4285f93700062d9595adb992ae68ff12800ab67a',
  },

  // RFC 4231 §4.3 (test case 2) for HMAC-SHA-2.
  'mac/sha256': { key: RFC4231_KEY, data: RFC4231_DATA, expected: '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843' },
  'mac/sha384': { key: RFC4231_KEY, data: RFC4231_DATA, expected: 'af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e8e2240ca5e69e2c78b3239ecfab21649' },
  'mac/sha512': { key: RFC4231_KEY, data: RFC4231_DATA, expected: '164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737' },
  // C2SP/wycheproof hmac_sha3_256_test.json and hmac_sha3_512_test.json, tcId 2 ("short message").
  'mac/sha3-256': {
    key: '8159fd15133cd964c9a6964c94f0ea269a806fd9f43f0da58b6cd1b33d189b2a',
    data: '77',
    expected: 'f709a35d41e82e36955512bf5fc1af0c1a9c580ff8fc3199bcb7454027029282',
  },
  // Wycheproof has no HMAC-SHA3-384 file: RFC 4231's test case 2 input, with the tag computed by an
  // independent implementation (hash-wasm's createHMAC(createSHA3(384))).
  'mac/sha3-384': { key: RFC4231_KEY, data: RFC4231_DATA, expected: 'f1101f8cbf9766fd6764d2ed61903f21ca9b18f57cf3e1a23ca13508a93243ce48c045dc007f26a21b3f5e0e9df4c20a' },
  'mac/sha3-512': {
    key: '00698977f7102c67b594166919aa99dc3e58c7b6697a6422e238d04d2f57b2c74e4e84f5c4c6b792952df72f1c09244802f0bcf8752efb90e836110703bfa21c',
    data: '01',
    expected: '84185a2890b3f4c5ef8723c292db676c69104e7ff7def5ecf26928a41626d2b16b063d8a9df03917498467f5abd7af3c6c732957f67cb800a517b26963142a1d',
  },

  // draft-irtf-cfrg-xchacha-03 §A.3.1 (also Wycheproof xchacha20_poly1305_test.json tcId 1):
  // expected = ciphertext ‖ tag.
  'aead/xchacha20-poly1305': {
    key: '808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f',
    nonce: '404142434445464748494a4b4c4d4e4f5051525354555657',
    aad: '50515253c0c1c2c3c4c5c6c7',
    plaintext: '4c616469657320616e642047656e746c656d656e206f662074686520636c617373206f66202739393a204966204920636f756c64206f6666657220796f75206f6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73637265656e20776f756c642062652069742e',
    expected: 'bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b4522f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff921f9664c97637da9768812f615c68b13b52ec0875924c1c7987947deafd8780acf49',
  },

  // RFC 7914 §12, the first scrypt vector: P = "", S = "", N = 16, r = 1, p = 1, dkLen = 64.
  'kdf/scrypt': { password: '', salt: '', N: 16, r: 1, p: 1, expected: '77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906' },
  // RFC 5869 A.1 (HKDF-SHA256, basic test case).
  'kdf/hkdf-sha256': {
    ikm: '0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b',
    salt: '000102030405060708090a0b0c',
    info: 'f0f1f2f3f4f5f6f7f8f9',
    expected: '3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865',
  },
  // RFC 5869 covers SHA-256 only: C2SP/wycheproof hkdf_sha384_test.json and hkdf_sha512_test.json, tcId 10.
  'kdf/hkdf-sha384': {
    ikm: 'c360e16084cfd13cb44b0dc02d8665de',
    salt: '685ac7df93701d6c78babd847861bb3c',
    info: 'e0ddfaaaa7afb53f59a007a205c7149b5b5a72be',
    expected: '00aa140387a3d43aae915c35b306533179019bab',
  },
  'kdf/hkdf-sha512': {
    ikm: 'c360e16084cfd13cb44b0dc02d8665de',
    salt: '685ac7df93701d6c78babd847861bb3c',
    info: 'e0ddfaaaa7afb53f59a007a205c7149b5b5a72be',
    expected: '17408c6f8dd7eb8423758ce39a91b59020f7debe',
  },
  // RFC 7914 §11: PBKDF2-HMAC-SHA256, P = "passwd", S = "salt", c = 1, dkLen = 64.
  'kdf/pbkdf2-sha256': { password: '706173737764', salt: '73616c74', iterations: 1, expected: '55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783' },

  // Argon2id v=0x13. RFC 9106 §5.3's vector has associated data, which only the native backend
  // (node:crypto, Node 24) takes; @node-rs/argon2 (Node 22) has no such input. So every backend runs
  // the same inputs without associated data and at m = 64 KiB, whose tag was computed with an
  // independent implementation, hash-wasm's argon2id; the native backend also runs RFC 9106's.
  'password/argon2id': {
    password: '0101010101010101010101010101010101010101010101010101010101010101',
    salt: '02020202020202020202020202020202',
    secret: '0303030303030303',
    t: 3,
    m: 64,
    p: 4,
    expected: '2490f950ebb0e99b5a48f737f9cce402e95b8e24d11fd7a5bd7ca726669d0a90',
    rfc9106AssociatedData: '040404040404040404040404',
    rfc9106Memory: 32,
    expectedRfc9106: '0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659',
  },

  // RFC 3394 §4.6 (256-bit KEK, 256-bit key) and RFC 5649 §6 (192-bit KEK, 20-octet key).
  'keyWrap/aes-kw': {
    kek: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
    key: '00112233445566778899aabbccddeeff000102030405060708090a0b0c0d0e0f',
    expected: '28c9f404c4b810f4cbccb35cfb87f8263f5786e2d80ed326cbc7f0e71a99f43bfb988b9b7a02dd21',
  },
  'keyWrap/aes-kwp': {
    kek: '5840df6e29b02af1ab493b705bf16ea1ae8338f4dcc176a8',
    key: 'c37b7e6492584340bed12207808941155068f738',
    expected: '138bdeaa9b8fa7fc61f97742e72248ee5ae6ae5360d1ae6a5f54f373fa543b6a',
  },

  // The crypto_box_seal reference vector of PyNaCl (pyca/pynacl tests/data/sealed_box_ref.txt, made
  // with libsodium), to the RFC 7748 §6.1 Alice key.
  'sealedBox/x25519-xsalsa20-poly1305': {
    secretKey: RFC7748.x25519.alicePrivate,
    publicKey: RFC7748.x25519.alicePublic,
    sealed: '199c808806a62c1be56951023ad3396b0ce0ef2c5b9ca688ac96d2d06ca43f65d314400cc9bbefb23dd26f824c9cb553f81e8c894ea9a553f4d777c77b66d5a6925da3f5961c5f7147172db5597ac14210066ee3ee13e6230a9a9610e9cddbf24094f54fbbf6694c08a436cec39ff5a373656d9584f4df9dd8c817e2e597540628d0ee21a6524a3fcf3eabdc0968390bd260a47366ead7f71cc2e774d411d96f3497c7e10291937bc16dc46a111686b85a8c86',
    expectedPlaintext: 'be075fc53c81f2d5cf141316ebeb0c7b5228c52a4c62cbd44b66849b64244ffce5ecbaaf33bd751a1ac728d45e6c61296cdc3c01233561f41db66cce314adb310e3be8250c46f06dceea3a7fa1348057e2f6556ad6b1318a024a838f21af1fde048977eb48f59ffd4924ca1c60902e52f0a089bc76897040e082f937763848645e0705',
  },
  // See self-test-pq-vectors.ts: sealed by @hpke/core to the X-Wing draft vector's key.
  [`sealedBox/${PQ_SEALED_BOX}`]: { seed: XWING_SELF_TEST_VECTOR.seed, ...PQ_SEALED_BOX_SELF_TEST_VECTOR },

  // X25519: RFC 7748 §6.1 (the exchange, and Alice's public key), and RFC 9180 A.2.1
  // (DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20-Poly1305, the suite of the multi-recipient
  // envelope's x25519 slots): OpenBase of the sequence-0 encryption with skRm.
  'kem/x25519': {
    privateKey: RFC7748.x25519.alicePrivate,
    peerPublicKey: RFC7748.x25519.bobPublic,
    expectedPublicKey: RFC7748.x25519.alicePublic,
    expectedSharedSecret: RFC7748.x25519.shared,
    hpkeRecipientKey: '8057991eef8f1f1af18f4a9491d16a1ce333f695d4db8e38da75975c4478e0fb',
    hpkeEnc: '1afa08d3dec047a643885163f1180476fa7ddb54c6a8029ea33f95796bf2ac4a',
    hpkeInfo: '4f6465206f6e2061204772656369616e2055726e',
    hpkeAad: '436f756e742d30',
    hpkeCiphertext: '1c5250d8034ec2b784ba2cfd69dbdb8af406cfe3ff938e131f0def8c8b60b4db21993c62ce81883d2dd1b51a28',
    expectedHpkePlaintext: '4265617574792069732074727574682c20747275746820626561757479',
  },
  ...(Object.fromEntries(Object.entries(ML_KEM_SELF_TEST_VECTORS).map(([id, vector]) => [`kem/${id}`, vector])) as Record<`kem/${MlKemAlgorithm}`, MlKemSelfTestVector>),
  [`kem/${XWING_ALGORITHM}`]: XWING_SELF_TEST_VECTOR,

  // RFC 8032 §7.1 TEST 2 (one-octet message 0x72).
  'signature/ed25519': {
    privateKey: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    publicKey: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    message: '72',
    expectedSignature: '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  },
  // RFC 8032 §7.4 "1 octet" and "1 octet (with context)" (context "foo"): both code paths of Ed448.
  'signature/ed448': {
    privateKey: 'c4eab05d357007c632f3dbb48489924d552b08fe0c353a0d4a1f00acda2c463afbea67c5e8d2877c5e3bc397a659949ef8021e954e0a12274e',
    publicKey: '43ba28f430cdff456ae531545f7ecd0ac834a55d9358c0372bfa0c6c6798c0866aea01eb00742802b8438ea4cb82169c235160627b4c3a9480',
    message: '03',
    expectedSignature: '26b8f91727bd62897af15e41eb43c377efb9c610d48f2335cb0bd0087810f4352541b143c4b981b7e18f62de8ccdf633fc1bf037ab7cd779805e0dbcc0aae1cbcee1afb2e027df36bc04dcecbf154336c19f0af7e0a6472905e799f1953d2a0ff3348ab21aa4adafd1d234441cf807c03a00',
    context: '666f6f',
    expectedContextSignature: 'd4f8f6131770dd46f40867d6fd5d5055de43541f8c5e35abbcd001b32a89f7d2151f7647f11d8ca2ae279fb842d607217fce6e042f6815ea000c85741de5c8da1144a6a1aba7f96de42505d7a7298524fda538fccbbb754f578c1cad10d54d0d5428407e85dcbc98a49155c13764e66c3c00',
  },
  'signature/ecdsa-p256': RFC6979['ecdsa-p256'],
  'signature/ecdsa-p384': RFC6979['ecdsa-p384'],
  ...(Object.fromEntries(Object.entries(ML_DSA_SELF_TEST_VECTORS).map(([id, vector]) => [`signature/${id}`, vector])) as Record<`signature/${MlDsaAlgorithm}`, MlDsaSelfTestVector>),
  // See the comment on self-test-slh-dsa.json's import.
  ...(Object.fromEntries(Object.entries(SLH_DSA_SELF_TEST_DATA.vectors).map(([id, vector]) => [
    `signature/${id}`,
    { publicKey: vector.publicKey, message: SLH_DSA_SELF_TEST_DATA.message, context: SLH_DSA_SELF_TEST_DATA.context, expectedSignature: vector.signature },
  ])) as Record<`signature/${SlhDsaAlgorithm}`, { publicKey: string; message: string; context: string; expectedSignature: string }>),

  // Key agreement keys: RFC 7748's Alice public keys from the private keys (X25519 §6.1, X448 §6.2).
  'keyGeneration/x25519': { privateKey: RFC7748.x25519.alicePrivate, expectedPublicKey: RFC7748.x25519.alicePublic },
  'keyGeneration/x448': { privateKey: RFC7748.x448.alicePrivate, expectedPublicKey: RFC7748.x448.alicePublic },
} as const;

// The tests read these at every run: nothing in the process may change them.
for (const vector of Object.values(SELF_TEST_VECTORS)) Object.freeze(vector);
Object.freeze(SELF_TEST_VECTORS);

export type SelfTestVectors = typeof SELF_TEST_VECTORS;

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
    const input = typeof v.inputLength === 'number'
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
      check(verifyHmac(algorithm, key, data, expected, { backend }), `${id} (${backend}): verification refuses the published MAC`);
      check(!verifyHmac(algorithm, key, data, flipped(expected), { backend }), `${id} (${backend}): verification accepts a wrong MAC`);
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
      await expectDecryptionFailure(() => xchachaOpen(key, bytes(expected), flipped(aad), { backend }), `${id} (${backend})`);
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
      derived = await scryptRaw(bytes(text(v, 'password')), bytes(text(v, 'salt')), { N: number(v, 'N'), r: number(v, 'r'), p: number(v, 'p') }, length);
    } else if (algorithm === 'pbkdf2-sha256') {
      derived = await pbkdf2Raw('sha256', bytes(text(v, 'password')), bytes(text(v, 'salt')), number(v, 'iterations'), length);
    } else {
      // HKDF through the route's own entry points (its vectors fit the route's bounds), then on
      // each of the two backends that `auto` chooses between by size (kdf.ts).
      const input = { ikm: bytes(text(v, 'ikm')), salt: bytes(text(v, 'salt')), info: bytes(text(v, 'info')) };
      derived = await deriveKey(planKdf({ algorithm, password: input.ikm, salt: input.salt, keyLength: length, params: { info: input.info } }));
      const { hash } = KDF_ALGORITHMS[algorithm as keyof typeof KDF_ALGORITHMS] as { hash: string };
      for (const backend of ['noble', 'native'] as const) {
        expectHex(hkdfRaw(hash, input.ikm, input.salt, input.info, length, { backend }), expected, `${id} (${backend})`);
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
      const rfc = await argon2Raw({ ...common, params: { ...params, m: number(v, 'rfc9106Memory') }, associatedData: bytes(text(v, 'rfc9106AssociatedData')) });
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
    const secretKey = bytes(text(v, 'seed'));
    const sealed = bytes(text(v, 'sealed'));
    expectHex(await openBoxPq({ secretKey }, sealed), text(v, 'expectedPlaintext'), `${id} open`);
    const tampered = sealed.slice();
    tampered[tampered.length - 1] = (tampered[tampered.length - 1] ?? 0) ^ 1;
    await expectDecryptionFailure(() => openBoxPq({ secretKey }, tampered), `${id} open`);
    const { publicKey } = await xwingKeygen({ seed: secretKey });
    const resealed = await sealBoxPq({ publicKey }, PCT_MESSAGE);
    check(hexOf(await openBoxPq({ secretKey }, resealed)) === hexOf(PCT_MESSAGE), `${id}: a freshly sealed box does not open`);
  };
}

function x25519KemTest(id: string, vectors: Vectors): SelfTest {
  return async () => {
    const v = vectorOf(vectors, id);
    const privateKey = bytes(text(v, 'privateKey'));
    expectHex(x25519PublicKeyOf(privateKey), text(v, 'expectedPublicKey'), `${id} public key`);
    expectHex(sealedBoxX25519(privateKey, bytes(text(v, 'peerPublicKey'))), text(v, 'expectedSharedSecret'), `${id} shared secret`);
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
async function mlKemKat(id: string, algorithm: MlKemAlgorithm, v: Record<string, string | number>): Promise<{ publicKey: Uint8Array; seed: Uint8Array; level: number }> {
  const { level } = ML_KEM_PARAMETERS[algorithm];
  const seed = bytes(text(v, 'seed'));
  const { publicKey } = await mlKemKeygen(level, { seed });
  check(sha256Hex(publicKey) === text(v, 'expectedPublicKeySha256'), `${id}: the key generated from the seed is not the published one`);
  const { sharedSecret } = await mlKemDecapsulate(seed, bytes(text(v, 'ciphertext')), level);
  expectHex(sharedSecret, text(v, 'expectedSharedSecret'), `${id} decapsulation`);
  return { publicKey, seed, level };
}

async function mlKemPct(id: string, publicKey: Uint8Array, secretKey: Uint8Array, level: number): Promise<void> {
  const encapsulated = await mlKemEncapsulate(publicKey);
  const decapsulated = await mlKemDecapsulate(secretKey, encapsulated.ciphertext, level);
  check(hexOf(decapsulated.sharedSecret) === hexOf(encapsulated.sharedSecret), `${id}: encapsulation and decapsulation disagree`);
}

function mlKemTest(id: string, algorithm: MlKemAlgorithm, vectors: Vectors, vectorId = id): SelfTest {
  return async () => {
    const { publicKey, seed, level } = await mlKemKat(id, algorithm, vectorOf(vectors, vectorId));
    await mlKemPct(id, publicKey, seed, level);
  };
}

async function xwingKat(id: string, v: Record<string, string | number>): Promise<void> {
  const seed = bytes(text(v, 'seed'));
  const { publicKey } = await xwingKeygen({ seed });
  check(sha256Hex(publicKey) === text(v, 'expectedPublicKeySha256'), `${id}: the key generated from the seed is not the published one`);
  expectHex((await xwingDecapsulate(seed, bytes(text(v, 'ciphertext')))).sharedSecret, text(v, 'expectedSharedSecret'), `${id} decapsulation`);
}

async function xwingPct(id: string, publicKey: Uint8Array, secretKey: Uint8Array): Promise<void> {
  const encapsulated = await xwingEncapsulate(publicKey);
  const decapsulated = await xwingDecapsulate(secretKey, encapsulated.ciphertext);
  check(hexOf(decapsulated.sharedSecret) === hexOf(encapsulated.sharedSecret), `${id}: encapsulation and decapsulation disagree`);
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
      expectHex(await signMessage(algorithm, privateKey, message, { context }), text(v, 'expectedContextSignature'), `${id} sign with context`);
      await verifyKat(algorithm, publicKey, message, bytes(text(v, 'expectedContextSignature')), `${id} with context`, context);
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

async function mlDsaKat(id: string, algorithm: MlDsaAlgorithm, v: Record<string, string | number>): Promise<{ seed: Uint8Array; publicKey: Uint8Array }> {
  const seed = bytes(text(v, 'seed'));
  const { publicKey } = await mlDsaKeygen(ML_DSA_PARAMETERS[algorithm].level, { seed });
  check(sha256Hex(publicKey) === text(v, 'expectedPublicKeySha256'), `${id}: the key generated from the seed is not the published one`);
  return { seed, publicKey };
}

function mlDsaTest(id: string, algorithm: MlDsaAlgorithm, vectors: Vectors): SelfTest {
  return async () => {
    const v = vectorOf(vectors, id);
    const { seed, publicKey } = await mlDsaKat(id, algorithm, v);
    await verifyKat(algorithm, publicKey, bytes(text(v, 'message')), bytes(text(v, 'expectedSignature')), id);
    // Signing is hedged (fresh randomness): pairwise consistency through the signature entry point.
    await signVerifyPct(algorithm, seed, publicKey, id);
  };
}

/**
 * The SLH-DSA verification KAT, run once per vectors object and parameter set: key generation's test
 * is the same check (see slhDsaKeyTest), and in pure JavaScript each run costs up to 140 ms.
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
      await verifyKat(algorithm, bytes(text(v, 'publicKey')), utf8(text(v, 'message')), new Uint8Array(signature), id, utf8(text(v, 'context')));
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

const X448: OkpCurve = { nodeType: 'x448', jwkCurve: 'X448', oidArc: 111, privateKeyLength: 56, publicKeyLength: 56 };

function rawPair(key: GeneratedKey, id: string): { publicKey: Uint8Array; privateKey: Uint8Array } {
  check(key.kind === 'pair' && key.publicKey instanceof Uint8Array && key.privateKey instanceof Uint8Array, `${id}: not a raw key pair`);
  return { publicKey: key.publicKey as Uint8Array, privateKey: key.privateKey as Uint8Array };
}

/** The X448 public key of a private key, by node:crypto's own import (the generator is OpenSSL's). */
function x448PublicKeyOf(privateKey: Uint8Array): Uint8Array {
  const jwk = createPublicKey(okpPrivateKeyObject(X448, privateKey)).export({ format: 'jwk' }) as Jwk;
  return new Uint8Array(Buffer.from(jwk.x ?? '', 'base64url'));
}

function keyAgreementKeyTest(id: string, algorithm: 'x25519' | 'x448', vectors: Vectors): SelfTest {
  const publicKeyOf = algorithm === 'x25519' ? x25519PublicKeyOf : x448PublicKeyOf;
  return async () => {
    const v = vectorOf(vectors, id);
    expectHex(publicKeyOf(bytes(text(v, 'privateKey'))), text(v, 'expectedPublicKey'), `${id} public key`);
    // Pairwise consistency of a fresh pair: its public key is the one of its private key.
    const pair = rawPair(await generateKeyMaterial(algorithm), id);
    check(hexOf(publicKeyOf(pair.privateKey)) === hexOf(pair.publicKey), `${id}: a generated public key does not match its private key`);
    // And the JWK export names the same key (the PEM/JWK forms go through node:crypto's import).
    const jwk = await generateKeyMaterial(algorithm, 'jwk');
    check(jwk.kind === 'pair' && typeof jwk.privateKey === 'object' && !(jwk.privateKey instanceof Uint8Array), `${id}: no JWK pair`);
    const exported = createPublicKey(createPrivateKey({ key: jwk.privateKey as Jwk, format: 'jwk' })).export({ format: 'jwk' }) as Jwk;
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
    check(first.some((byte) => byte !== first[0]), `${id}: a generated key is constant`);
    if (algorithm === 'xchacha20-poly1305') {
      check(hexOf(xchachaOpen(first, xchachaSeal(first, PCT_MESSAGE))) === hexOf(PCT_MESSAGE), `${id}: the key does not round-trip`);
    } else if (algorithm.startsWith('aes-')) {
      check(hexOf(unwrapKey('aes-kw', first, wrapKey('aes-kw', first, second.subarray(0, 16)))) === hexOf(second.subarray(0, 16)), `${id}: the key does not round-trip`);
    } else {
      const mac = algorithm.replace('hmac-', '');
      check(verifyHmac(mac, first, PCT_MESSAGE, computeHmac(mac, first, PCT_MESSAGE)), `${id}: the key does not verify its own MAC`);
    }
  };
}

function mlKemKeyTest(id: string, algorithm: MlKemAlgorithm, vectors: Vectors): SelfTest {
  return async () => {
    const { level } = await mlKemKat(id, algorithm, vectorOf(vectors, `kem/${algorithm}`));
    const pair = rawPair(await generateKeyMaterial(algorithm), id);
    await mlKemPct(id, pair.publicKey, pair.privateKey, level);
  };
}

function xwingKeyTest(id: string, vectors: Vectors): SelfTest {
  return async () => {
    await xwingKat(id, vectorOf(vectors, `kem/${XWING_ALGORITHM}`));
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
 * what it costs to build the top XMSS tree (30–170 ms natively for the `s` sets, up to 2 s in pure
 * JavaScript), and a pairwise test would add a signature. Its test is therefore the verification
 * KAT of the same parameter set (run once, shared with `signature/…`), which exercises the set's
 * hash functions and recomputes the PK.root that key generation builds; a backend that fails it
 * disables key generation of that set too.
 */
function slhDsaKeyTest(algorithm: SlhDsaAlgorithm, vectors: Vectors): SelfTest {
  return slhDsaTest(algorithm, vectors);
}

// ---------------------------------------------------------------------------------------------
// The table

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
    case 'sealedBox':
      if (algorithm === PQ_SEALED_BOX) return pqSealedBoxTest(id, vectors);
      return algorithm === 'x25519-xsalsa20-poly1305' ? sealedBoxTest(id, vectors) : undefined;
    case 'kem':
      if (algorithm === 'x25519') return x25519KemTest(id, vectors);
      if (algorithm === XWING_ALGORITHM) return xwingTest(id, vectors);
      return isMlKem(algorithm) ? mlKemTest(id, algorithm, vectors) : undefined;
    case 'signature':
      if (algorithm === 'ed25519' || algorithm === 'ed448') return eddsaTest(id, algorithm, vectors);
      if (algorithm === 'ecdsa-p256' || algorithm === 'ecdsa-p384') return ecdsaTest(id, algorithm, vectors);
      if (isMlDsa(algorithm)) return mlDsaTest(id, algorithm, vectors);
      return isSlhDsa(algorithm) ? slhDsaTest(algorithm, vectors) : undefined;
    case 'keyGeneration':
      if (algorithm === 'x25519' || algorithm === 'x448') return keyAgreementKeyTest(id, algorithm, vectors);
      if (algorithm === 'ed25519' || algorithm === 'ed448' || algorithm === 'ecdsa-p256' || algorithm === 'ecdsa-p384') return signatureKeyTest(id, algorithm);
      if (isMlKem(algorithm)) return mlKemKeyTest(id, algorithm, vectors);
      if (algorithm === XWING_ALGORITHM) return xwingKeyTest(id, vectors);
      if (isMlDsa(algorithm)) return mlDsaKeyTest(id, algorithm, vectors);
      if (isSlhDsa(algorithm)) return slhDsaKeyTest(algorithm, vectors);
      return isKeyGenerationAlgorithm(algorithm) && isSymmetricKeyAlgorithm(algorithm) ? symmetricKeyTest(id, algorithm) : undefined;
  }
}

/**
 * The order in which the suite runs: the cheap, much-used families first, so that they are
 * available soonest while the rest runs; SLH-DSA last within its families (see file comment).
 */
const FAMILY_ORDER: readonly AlgorithmFamily[] = ['hash', 'mac', 'aead', 'kdf', 'keyWrap', 'password', 'sealedBox', 'kem', 'signature', 'keyGeneration'];

/** Every (family, id) pair of the registry as `family/id`, in the order the suite runs them. */
export function selfTestIds(): string[] {
  const families = [...FAMILY_ORDER, ...(Object.keys(ALGORITHM_REGISTRY) as AlgorithmFamily[]).filter((family) => !FAMILY_ORDER.includes(family))];
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
export async function runSelfTests(options: { tests?: Readonly<Record<string, SelfTest>>; overrides?: Readonly<Record<string, SelfTest>> } = {}): Promise<SelfTestOutcome[]> {
  const tests = options.tests ?? SELF_TESTS;
  const outcomes: SelfTestOutcome[] = [];
  for (const id of selfTestIds()) {
    const test = options.overrides !== undefined && Object.hasOwn(options.overrides, id) ? options.overrides[id] : tests[id];
    outcomes.push(await runSelfTest(id, test));
    await nextTurn();
  }
  return outcomes;
}
