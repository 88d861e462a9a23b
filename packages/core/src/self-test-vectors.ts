/**
 * The expected answers of the start-up self-tests (self-test.ts), by test (`family/id`). Every
 * answer comes from outside this service's code: a published vector (RFC, FIPS, NIST example,
 * Wycheproof, IETF draft), or, where none exists for the exact operation, an answer computed with an
 * independent implementation (named beside it). Fields whose name starts with `expected` are the
 * answers; the long post-quantum ones are in self-test-pq-vectors.ts and self-test-slh-dsa.json.
 *
 * SLH-DSA: for each of the twelve FIPS 205 parameter sets, a public key and a signature of "abc"
 * under the context "crypto-service self-test". No ACVP or Wycheproof SLH-DSA vectors are among the
 * published vectors the project tests against, so they come from an implementation independent of
 * the native backend, @noble/post-quantum 0.7.1, in FIPS 205's deterministic mode (keys from
 * slh_keygen_internal(seed) with seed = the bytes 0, 1, …, 3n − 1; sign(message, secretKey,
 * { context, extraEntropy: false })), and every signature was checked with a second
 * implementation, OpenSSL 3.5 (node:crypto on Node 24): two implementations agree, neither of
 * them this service's code. The signatures are large, hence JSON, which loads far faster than a
 * TypeScript module of that size.
 */
import {
  ML_DSA_SELF_TEST_VECTORS,
  ML_KEM_SELF_TEST_VECTORS,
  PQ_SEALED_BOX_SELF_TEST_VECTOR,
  XWING_SELF_TEST_VECTOR,
  type MlDsaSelfTestVector,
  type MlKemSelfTestVector,
} from './self-test-pq-vectors.ts';
import SLH_DSA_SELF_TEST_DATA from './self-test-slh-dsa.json' with { type: 'json' };
import type { MlDsaAlgorithm } from './ml-dsa.ts';
import type { MlKemAlgorithm } from './ml-kem.ts';
import { PQ_SEALED_BOX } from './sealedbox-pq.ts';
import type { SlhDsaAlgorithm } from './slh-dsa.ts';
import { XWING_ALGORITHM } from './xwing.ts';

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
    alicePrivate:
      '9a8f4925d1519f5775cf46b04b5800d4ee9ee8bae8bc5565d498c28dd9c9baf574a9419744897391006382a6f127ab1d9ac2d8c0a598726b',
    alicePublic:
      '9b08f7cc31b7e3e67d22d5aea121074a273bd2b83de09c63faa73d2c22c5d9bbc836647241d953d40c5b12da88120d53177f80e532c41fa0',
  },
} as const;

/** RFC 6979 A.2.5 (P-256) and A.2.6 (P-384): key pair, and the deterministic signature of "sample" (r ‖ s). */
const RFC6979 = {
  'ecdsa-p256': {
    privateKey: 'c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721',
    publicKey:
      '0460fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb67903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299',
    message: '73616d706c65',
    expectedSignature:
      'efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8',
  },
  'ecdsa-p384': {
    privateKey: '6b9d3dad2e1b8c1c05b19875b6659f4de23c3b667bf297ba9aa47740787137d896d5724e4c70a825f872c9ea60d2edf5',
    publicKey:
      '04ec3a4e415b4e19a4568618029f427fa5da9a8bc4ae92e02e06aae5286b300c64def8f0ea9055866064a254515480bc138015d9b72d7d57244ea8ef9ac0c621896708a59367f9dfb9f54ca84b3f1c9db1288b231c3ae0d4fe7344fd2533264720',
    message: '73616d706c65',
    expectedSignature:
      '94edbb92a5ecb8aad4736e56c691916b3f88140666ce9fa73d64c4ea95ad133c81a648152e44acf96e36dd1e80fabe4699ef4aeb15f178cea1fe40db2603138f130e740a19624526203b6351d0a3a94fa329c145786e679e7b82c71a38628ac8',
  },
} as const;

/**
 * Every expected answer, by the test that uses it. Tests take them from this object (a parameter of
 * createSelfTests), so that a test can hand in a corrupted copy and see the one test fail.
 */
export const SELF_TEST_VECTORS = {
  // FIPS 180-4 / FIPS 202 (NIST CSRC "Examples with intermediate values"): the digests of "abc".
  'hash/sha256': { message: ABC, expected: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad' },
  'hash/sha384': {
    message: ABC,
    expected: 'cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7',
  },
  'hash/sha512': {
    message: ABC,
    expected:
      'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
  },
  'hash/sha512-256': { message: ABC, expected: '53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23' },
  'hash/sha3-256': { message: ABC, expected: '3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532' },
  'hash/sha3-384': {
    message: ABC,
    expected: 'ec01498288516fc926459f58e2c6ad8df9b473cb0fc08c2596da7cf0e49be4b298d88cea927ac7f539f1edf228376d25',
  },
  'hash/sha3-512': {
    message: ABC,
    expected:
      'b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0',
  },
  // FIPS 202 examples: SHAKE128("abc") to 256 bits, SHAKE256("abc") to 512 bits.
  'hash/shake128': {
    message: ABC,
    length: 32,
    expected: '5881092dd818bf5cf8a3ddb793fbcba74097d5c526a6d35f97b83351940f2cc8',
  },
  'hash/shake256': {
    message: ABC,
    length: 64,
    expected:
      '483366601360a8771c6863080cc4114d8db44530f8f1e1ee4f94ea37e78b5739d5a15bef186a5386c75744c0527e1faa9f8726e462a12a4feb06bd8801e751e4',
  },
  // RFC 7693 has no BLAKE2b-256 example: BLAKE2b-256("abc") as computed by two independent
  // implementations that agree, hash-wasm (blake2b, 256 bits) and GNU coreutils' `b2sum -l 256`.
  'hash/blake2b-256': { message: ABC, expected: 'bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319' },
  // RFC 7693 Appendix A: BLAKE2b-512("abc"). `blake2b` is an alias of the same function.
  'hash/blake2b-512': {
    message: ABC,
    expected:
      'ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923',
  },
  'hash/blake2b': {
    message: ABC,
    expected:
      'ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923',
  },
  // BLAKE3 official test vectors (BLAKE3-team/BLAKE3 test_vectors/test_vectors.json): input_len 1025
  // (bytes i mod 251, so two chunks), extended output of 131 bytes.
  'hash/blake3': {
    inputLength: 1025,
    length: 131,
    expected:
      'd00278ae47eb27b34faecf67b4fe263f82d5412916c1ffd97c8cb7fb814b8444f4c4a22b4b399155358a994e52bf255de60035742ec71bd08ac275a1b51cc6bfe332b0ef84b409108cda080e6269ed4b3e2c3f7d722aa4cdc98d16deb554e5627be8f955c98e1d5f9565a9194cad0c4285f93700062d9595adb992ae68ff12800ab67a',
  },

  // RFC 4231 §4.3 (test case 2) for HMAC-SHA-2.
  'mac/hmac-sha256': {
    key: RFC4231_KEY,
    data: RFC4231_DATA,
    expected: '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
  },
  'mac/hmac-sha384': {
    key: RFC4231_KEY,
    data: RFC4231_DATA,
    expected: 'af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e8e2240ca5e69e2c78b3239ecfab21649',
  },
  'mac/hmac-sha512': {
    key: RFC4231_KEY,
    data: RFC4231_DATA,
    expected:
      '164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737',
  },
  // C2SP/wycheproof hmac_sha3_256_test.json and hmac_sha3_512_test.json, tcId 2 ("short message").
  'mac/hmac-sha3-256': {
    key: '8159fd15133cd964c9a6964c94f0ea269a806fd9f43f0da58b6cd1b33d189b2a',
    data: '77',
    expected: 'f709a35d41e82e36955512bf5fc1af0c1a9c580ff8fc3199bcb7454027029282',
  },
  // Wycheproof has no HMAC-SHA3-384 file: RFC 4231's test case 2 input, with the tag computed by an
  // independent implementation (hash-wasm's createHMAC(createSHA3(384))).
  'mac/hmac-sha3-384': {
    key: RFC4231_KEY,
    data: RFC4231_DATA,
    expected: 'f1101f8cbf9766fd6764d2ed61903f21ca9b18f57cf3e1a23ca13508a93243ce48c045dc007f26a21b3f5e0e9df4c20a',
  },
  'mac/hmac-sha3-512': {
    key: '00698977f7102c67b594166919aa99dc3e58c7b6697a6422e238d04d2f57b2c74e4e84f5c4c6b792952df72f1c09244802f0bcf8752efb90e836110703bfa21c',
    data: '01',
    expected:
      '84185a2890b3f4c5ef8723c292db676c69104e7ff7def5ecf26928a41626d2b16b063d8a9df03917498467f5abd7af3c6c732957f67cb800a517b26963142a1d',
  },

  // draft-irtf-cfrg-xchacha-03 §A.3.1 (also Wycheproof xchacha20_poly1305_test.json tcId 1):
  // expected = ciphertext ‖ tag.
  'aead/xchacha20-poly1305': {
    key: '808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f',
    nonce: '404142434445464748494a4b4c4d4e4f5051525354555657',
    aad: '50515253c0c1c2c3c4c5c6c7',
    plaintext:
      '4c616469657320616e642047656e746c656d656e206f662074686520636c617373206f66202739393a204966204920636f756c64206f6666657220796f75206f6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73637265656e20776f756c642062652069742e',
    expected:
      'bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b4522f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff921f9664c97637da9768812f615c68b13b52ec0875924c1c7987947deafd8780acf49',
  },

  // RFC 7914 §12, the first scrypt vector: P = "", S = "", N = 16, r = 1, p = 1, dkLen = 64.
  'kdf/scrypt': {
    password: '',
    salt: '',
    N: 16,
    r: 1,
    p: 1,
    expected:
      '77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906',
  },
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
  'kdf/pbkdf2-sha256': {
    password: '706173737764',
    salt: '73616c74',
    iterations: 1,
    expected:
      '55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783',
  },

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
    sealed:
      '199c808806a62c1be56951023ad3396b0ce0ef2c5b9ca688ac96d2d06ca43f65d314400cc9bbefb23dd26f824c9cb553f81e8c894ea9a553f4d777c77b66d5a6925da3f5961c5f7147172db5597ac14210066ee3ee13e6230a9a9610e9cddbf24094f54fbbf6694c08a436cec39ff5a373656d9584f4df9dd8c817e2e597540628d0ee21a6524a3fcf3eabdc0968390bd260a47366ead7f71cc2e774d411d96f3497c7e10291937bc16dc46a111686b85a8c86',
    expectedPlaintext:
      'be075fc53c81f2d5cf141316ebeb0c7b5228c52a4c62cbd44b66849b64244ffce5ecbaaf33bd751a1ac728d45e6c61296cdc3c01233561f41db66cce314adb310e3be8250c46f06dceea3a7fa1348057e2f6556ad6b1318a024a838f21af1fde048977eb48f59ffd4924ca1c60902e52f0a089bc76897040e082f937763848645e0705',
  },
  // See self-test-pq-vectors.ts: sealed by @hpke/core to the X-Wing draft vector's key.
  [`pqSealedBox/${PQ_SEALED_BOX}`]: { seed: XWING_SELF_TEST_VECTOR.seed, ...PQ_SEALED_BOX_SELF_TEST_VECTOR },

  // X25519: RFC 7748 §6.1 (the exchange, and Alice's public key), and RFC 9180 A.2.1
  // (DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20-Poly1305, the suite of the multi-recipient
  // envelope's x25519 slots): OpenBase of the sequence-0 encryption with skRm.
  'recipientType/x25519': {
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
  ...(Object.fromEntries(
    Object.entries(ML_KEM_SELF_TEST_VECTORS).map(([id, vector]) => [`mlKem/${id}`, vector]),
  ) as Record<`mlKem/${MlKemAlgorithm}`, MlKemSelfTestVector>),
  [`hybridKem/${XWING_ALGORITHM}`]: XWING_SELF_TEST_VECTOR,

  // RFC 8032 §7.1 TEST 2 (one-octet message 0x72).
  'signature/ed25519': {
    privateKey: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    publicKey: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    message: '72',
    expectedSignature:
      '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  },
  // RFC 8032 §7.4 "1 octet" and "1 octet (with context)" (context "foo"): both code paths of Ed448.
  'signature/ed448': {
    privateKey:
      'c4eab05d357007c632f3dbb48489924d552b08fe0c353a0d4a1f00acda2c463afbea67c5e8d2877c5e3bc397a659949ef8021e954e0a12274e',
    publicKey:
      '43ba28f430cdff456ae531545f7ecd0ac834a55d9358c0372bfa0c6c6798c0866aea01eb00742802b8438ea4cb82169c235160627b4c3a9480',
    message: '03',
    expectedSignature:
      '26b8f91727bd62897af15e41eb43c377efb9c610d48f2335cb0bd0087810f4352541b143c4b981b7e18f62de8ccdf633fc1bf037ab7cd779805e0dbcc0aae1cbcee1afb2e027df36bc04dcecbf154336c19f0af7e0a6472905e799f1953d2a0ff3348ab21aa4adafd1d234441cf807c03a00',
    context: '666f6f',
    expectedContextSignature:
      'd4f8f6131770dd46f40867d6fd5d5055de43541f8c5e35abbcd001b32a89f7d2151f7647f11d8ca2ae279fb842d607217fce6e042f6815ea000c85741de5c8da1144a6a1aba7f96de42505d7a7298524fda538fccbbb754f578c1cad10d54d0d5428407e85dcbc98a49155c13764e66c3c00',
  },
  'signature/ecdsa-p256': RFC6979['ecdsa-p256'],
  'signature/ecdsa-p384': RFC6979['ecdsa-p384'],
  ...(Object.fromEntries(
    Object.entries(ML_DSA_SELF_TEST_VECTORS).map(([id, vector]) => [`signature/${id}`, vector]),
  ) as Record<`signature/${MlDsaAlgorithm}`, MlDsaSelfTestVector>),
  // See the comment on self-test-slh-dsa.json's import.
  ...(Object.fromEntries(
    Object.entries(SLH_DSA_SELF_TEST_DATA.vectors).map(([id, vector]) => [
      `signature/${id}`,
      {
        publicKey: vector.publicKey,
        message: SLH_DSA_SELF_TEST_DATA.message,
        context: SLH_DSA_SELF_TEST_DATA.context,
        expectedSignature: vector.signature,
      },
    ]),
  ) as Record<
    `signature/${SlhDsaAlgorithm}`,
    { publicKey: string; message: string; context: string; expectedSignature: string }
  >),

  // Key agreement keys: RFC 7748's Alice public keys from the private keys (X25519 §6.1, X448 §6.2).
  'keyGeneration/x25519': { privateKey: RFC7748.x25519.alicePrivate, expectedPublicKey: RFC7748.x25519.alicePublic },
  'keyGeneration/x448': { privateKey: RFC7748.x448.alicePrivate, expectedPublicKey: RFC7748.x448.alicePublic },
} as const;

// The tests read these at every run: nothing in the process may change them.
for (const vector of Object.values(SELF_TEST_VECTORS)) Object.freeze(vector);
Object.freeze(SELF_TEST_VECTORS);

export type SelfTestVectors = typeof SELF_TEST_VECTORS;
