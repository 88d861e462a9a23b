/**
 * Known-answer tests for digest(), from published vectors only. Every expected value below was
 * copied from the source named beside it; none was produced by the code under test. The last
 * group compares our outputs with independent implementations on random inputs.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { sha256, sha384, sha512, sha512_256 } from '@noble/hashes/sha2.js';
import { sha3_256, sha3_384, sha3_512, shake128, shake256 } from '@noble/hashes/sha3.js';
import { digest, HASH_ALGORITHM_IDS, HASH_ALGORITHMS, isExtendable, MAX_XOF_LENGTH } from '../src/hash.ts';
import type { HashAlgorithm } from '../src/hash.ts';
import { CryptoError } from '../src/errors.ts';

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

function ascii(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

function repeated(byte: number, count: number): Uint8Array {
  return new Uint8Array(count).fill(byte);
}

/** The BLAKE3 test-vector input: bytes 0, 1, ..., 250, 0, 1, ... */
function blake3Input(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i += 1) {
    bytes[i] = i % 251;
  }
  return bytes;
}

const EMPTY = new Uint8Array(0);
const ABC = ascii('abc');
/** The 448-bit message of the FIPS 180 examples. */
const MSG_448 = ascii('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq');
/** The 896-bit message of the FIPS 180 examples for the 64-bit-word functions. */
const MSG_896 = ascii(
  'abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu',
);
const MILLION_A = repeated(0x61, 1_000_000);
/** The 1600-bit message of the FIPS 202 examples: 200 bytes of 0xa3. */
const MSG_1600 = repeated(0xa3, 200);

interface KnownAnswer {
  readonly algorithm: HashAlgorithm;
  readonly name: string;
  readonly input: Uint8Array;
  /** Output length in bytes to ask for; undefined asks for the default. */
  readonly length?: number;
  readonly expected: string;
}

const KNOWN_ANSWERS: readonly KnownAnswer[] = [
  // SHA-256. "abc" and the 448-bit message: NIST CSRC "Examples with intermediate values",
  // SHA256.pdf (FIPS 180-4 one-block and two-block examples). Empty message: NIST CAVP SHAVS
  // SHA256ShortMsg.rsp, Len = 0. One million 'a': FIPS 180-2 Appendix B.3.
  {
    algorithm: 'sha256',
    name: '"abc"',
    input: ABC,
    expected: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
  },
  {
    algorithm: 'sha256',
    name: 'empty',
    input: EMPTY,
    expected: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  },
  {
    algorithm: 'sha256',
    name: '448-bit message',
    input: MSG_448,
    expected: '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
  },
  {
    algorithm: 'sha256',
    name: 'one million "a"',
    input: MILLION_A,
    expected: 'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0',
  },

  // SHA-384. "abc" and the 896-bit message: NIST CSRC examples, SHA384.pdf. Empty message: NIST
  // CAVP SHA384ShortMsg.rsp, Len = 0. 448-bit message and one million 'a': the test-vector table
  // of di-mgt.com.au/sha_testvectors.html, as copied into paulmillr/noble-hashes
  // test/hashes.test.ts (NIST_VECTORS); the 448-bit value also in Aaron Gifford's sha2 samples.
  {
    algorithm: 'sha384',
    name: '"abc"',
    input: ABC,
    expected: 'cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7',
  },
  {
    algorithm: 'sha384',
    name: 'empty',
    input: EMPTY,
    expected: '38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b',
  },
  {
    algorithm: 'sha384',
    name: '448-bit message',
    input: MSG_448,
    expected: '3391fdddfc8dc7393707a65b1b4709397cf8b1d162af05abfe8f450de5f36bc6b0455a8520bc4e6f5fe95b1fe3c8452b',
  },
  {
    algorithm: 'sha384',
    name: '896-bit message',
    input: MSG_896,
    expected: '09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712fcc7c71a557e2db966c3e9fa91746039',
  },
  {
    algorithm: 'sha384',
    name: 'one million "a"',
    input: MILLION_A,
    expected: '9d0e1809716474cb086e834e310a4a1ced149e9c00f248527972cec5704c2a5b07b8b3dc38ecc4ebae97ddd87f3d8985',
  },

  // SHA-512. "abc" and the 896-bit message: NIST CSRC examples, SHA512.pdf. Empty message: NIST
  // CAVP SHA512ShortMsg.rsp, Len = 0. 448-bit message and one million 'a': di-mgt.com.au table
  // (via noble-hashes test/hashes.test.ts, as above).
  {
    algorithm: 'sha512',
    name: '"abc"',
    input: ABC,
    expected:
      'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
  },
  {
    algorithm: 'sha512',
    name: 'empty',
    input: EMPTY,
    expected:
      'cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e',
  },
  {
    algorithm: 'sha512',
    name: '448-bit message',
    input: MSG_448,
    expected:
      '204a8fc6dda82f0a0ced7beb8e08a41657c16ef468b228a8279be331a703c33596fd15c13b1b07f9aa1d3bea57789ca031ad85c7a71dd70354ec631238ca3445',
  },
  {
    algorithm: 'sha512',
    name: '896-bit message',
    input: MSG_896,
    expected:
      '8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909',
  },
  {
    algorithm: 'sha512',
    name: 'one million "a"',
    input: MILLION_A,
    expected:
      'e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973ebde0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b',
  },

  // SHA-512/256. "abc" and the 896-bit message: NIST CSRC examples, SHA512_256.pdf. Empty
  // message: NIST CAVP SHA512_256ShortMsg.rsp, Len = 0. 448-bit message: dlang/phobos
  // std/digest/sha.d unittest (NIST publishes no example for it).
  {
    algorithm: 'sha512-256',
    name: '"abc"',
    input: ABC,
    expected: '53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23',
  },
  {
    algorithm: 'sha512-256',
    name: 'empty',
    input: EMPTY,
    expected: 'c672b8d1ef56ed28ab87c3622c5114069bdd3ad7b8f9737498d0c01ecef0967a',
  },
  {
    algorithm: 'sha512-256',
    name: '448-bit message',
    input: MSG_448,
    expected: 'bde8e1f9f19bb9fd3406c90ec6bc47bd36d8ada9f11880dbc8a22a7078b6a461',
  },
  {
    algorithm: 'sha512-256',
    name: '896-bit message',
    input: MSG_896,
    expected: '3928e184fb8690f840da3988121d31be65cb9d3ef83ee6146feac861e19b563a',
  },

  // SHA3-256/384/512. Empty and 1600-bit messages: NIST CSRC FIPS 202 examples
  // (SHA3-256_Msg0.pdf, SHA3-256_1600.pdf and the 384 and 512 counterparts). "abc", the
  // 448-bit message and one million 'a': di-mgt.com.au table (via noble-hashes, as above, and
  // denoland std hash/sha3_test.ts); "abc" also in Bouncy Castle's DigestTest.java abcVectors
  // (bcgit/bc-java).
  {
    algorithm: 'sha3-256',
    name: '"abc"',
    input: ABC,
    expected: '3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532',
  },
  {
    algorithm: 'sha3-256',
    name: 'empty',
    input: EMPTY,
    expected: 'a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a',
  },
  {
    algorithm: 'sha3-256',
    name: '448-bit message',
    input: MSG_448,
    expected: '41c0dba2a9d6240849100376a8235e2c82e1b9998a999e21db32dd97496d3376',
  },
  {
    algorithm: 'sha3-256',
    name: '1600-bit message (200 x 0xa3)',
    input: MSG_1600,
    expected: '79f38adec5c20307a98ef76e8324afbfd46cfd81b22e3973c65fa1bd9de31787',
  },
  {
    algorithm: 'sha3-256',
    name: 'one million "a"',
    input: MILLION_A,
    expected: '5c8875ae474a3634ba4fd55ec85bffd661f32aca75c6d699d0cdcb6c115891c1',
  },
  {
    algorithm: 'sha3-384',
    name: '"abc"',
    input: ABC,
    expected: 'ec01498288516fc926459f58e2c6ad8df9b473cb0fc08c2596da7cf0e49be4b298d88cea927ac7f539f1edf228376d25',
  },
  {
    algorithm: 'sha3-384',
    name: 'empty',
    input: EMPTY,
    expected: '0c63a75b845e4f7d01107d852e4c2485c51a50aaaa94fc61995e71bbee983a2ac3713831264adb47fb6bd1e058d5f004',
  },
  {
    algorithm: 'sha3-384',
    name: '448-bit message',
    input: MSG_448,
    expected: '991c665755eb3a4b6bbdfb75c78a492e8c56a22c5c4d7e429bfdbc32b9d4ad5aa04a1f076e62fea19eef51acd0657c22',
  },
  {
    algorithm: 'sha3-384',
    name: '1600-bit message (200 x 0xa3)',
    input: MSG_1600,
    expected: '1881de2ca7e41ef95dc4732b8f5f002b189cc1e42b74168ed1732649ce1dbcdd76197a31fd55ee989f2d7050dd473e8f',
  },
  {
    algorithm: 'sha3-512',
    name: '"abc"',
    input: ABC,
    expected:
      'b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0',
  },
  {
    algorithm: 'sha3-512',
    name: 'empty',
    input: EMPTY,
    expected:
      'a69f73cca23a9ac5c8b567dc185a756e97c982164fe25859e0d1dcc1475c80a615b2123af1f5f94c11e3e9402c3ac558f500199d95b6d3e301758586281dcd26',
  },
  {
    algorithm: 'sha3-512',
    name: '448-bit message',
    input: MSG_448,
    expected:
      '04a371e84ecfb5b8b77cb48610fca8182dd457ce6f326a0fd3d7ec2f1e91636dee691fbe0c985302ba1b0d8dc78c086346b533b49c030d99a27daf1139d6e75e',
  },
  {
    algorithm: 'sha3-512',
    name: '1600-bit message (200 x 0xa3)',
    input: MSG_1600,
    expected:
      'e76dfad22084a8b1467fcf2ffa58361bec7628edf5f3fdc0e4805dc48caeeca81b7c13c30adf52a3659584739a2df46be589c51ca1a4a8416df6545a1ce8ba00',
  },

  // SHAKE128. Empty message: NIST CSRC FIPS 202 example SHAKE128_Msg0.pdf, whose output begins
  // with these bytes (32 bytes also in CPython Lib/test/test_hashlib.py test_case_shake_128_0; 16
  // bytes is NIST CAVP SHAKE128ShortMsg.rsp, Outputlen = 128, Len = 0; 200 bytes as printed in
  // the example file). 1600-bit message: SHAKE128_Msg1600.pdf, first 64 bytes.
  {
    algorithm: 'shake128',
    name: 'empty, default length (32 bytes)',
    input: EMPTY,
    expected: '7f9c2ba4e88f827d616045507605853ed73b8093f6efbc88eb1a6eacfa66ef26',
  },
  {
    algorithm: 'shake128',
    name: 'empty, 16 bytes',
    input: EMPTY,
    length: 16,
    expected: '7f9c2ba4e88f827d616045507605853e',
  },
  {
    algorithm: 'shake128',
    name: 'empty, 200 bytes (more than one 168-byte squeeze)',
    input: EMPTY,
    length: 200,
    expected:
      '7f9c2ba4e88f827d616045507605853ed73b8093f6efbc88eb1a6eacfa66ef263cb1eea988004b93' +
      '103cfb0aeefd2a686e01fa4a58e8a3639ca8a1e3f9ae57e235b8cc873c23dc62b8d260169afa2f75' +
      'ab916a58d974918835d25e6a435085b2badfd6dfaac359a5efbb7bcc4b59d538df9a04302e10c8bc' +
      '1cbf1a0b3a5120ea17cda7cfad765f5623474d368ccca8af0007cd9f5e4c849f167a580b14aabdef' +
      'aee7eef47cb0fca9767be1fda69419dfb927e9df07348b196691abaeb580b32def58538b8d23f877',
  },
  {
    algorithm: 'shake128',
    name: '1600-bit message (200 x 0xa3), 64 bytes',
    input: MSG_1600,
    length: 64,
    expected:
      '131ab8d2b594946b9c81333f9bb6e0ce75c3b93104fa3469d3917457385da037cf232ef7164a6d1eb448c8908186ad852d3f85a5cf28da1ab6fe343817197846',
  },

  // SHAKE256. Empty message: NIST CSRC FIPS 202 example SHAKE256_Msg0.pdf, first bytes of its
  // output (32 bytes also in CPython test_case_shake_256_0 and NIST CAVP SHAKE256ShortMsg.rsp,
  // Outputlen = 256, Len = 0). 1600-bit message: SHAKE256_Msg1600.pdf, first 64 bytes.
  {
    algorithm: 'shake256',
    name: 'empty, default length (64 bytes)',
    input: EMPTY,
    expected:
      '46b9dd2b0ba88d13233b3feb743eeb243fcd52ea62b81b82b50c27646ed5762fd75dc4ddd8c0f200cb05019d67b592f6fc821c49479ab48640292eacb3b7c4be',
  },
  {
    algorithm: 'shake256',
    name: 'empty, 32 bytes',
    input: EMPTY,
    length: 32,
    expected: '46b9dd2b0ba88d13233b3feb743eeb243fcd52ea62b81b82b50c27646ed5762f',
  },
  {
    algorithm: 'shake256',
    name: 'empty, 200 bytes (more than one 136-byte squeeze)',
    input: EMPTY,
    length: 200,
    expected:
      '46b9dd2b0ba88d13233b3feb743eeb243fcd52ea62b81b82b50c27646ed5762fd75dc4ddd8c0f200' +
      'cb05019d67b592f6fc821c49479ab48640292eacb3b7c4be141e96616fb13957692cc7edd0b45ae3' +
      'dc07223c8e92937bef84bc0eab862853349ec75546f58fb7c2775c38462c5010d846c185c15111e5' +
      '95522a6bcd16cf86f3d122109e3b1fdd943b6aec468a2d621a7c06c6a957c62b54dafc3be87567d6' +
      '77231395f6147293b68ceab7a9e0c58d864e8efde4e1b9a46cbe854713672f5caaae314ed9083dab',
  },
  {
    algorithm: 'shake256',
    name: '1600-bit message (200 x 0xa3), 64 bytes',
    input: MSG_1600,
    length: 64,
    expected:
      'cd8a920ed141aa0407a22d59288652e9d9f1a7ee0c1e7c1ca699424da84a904d2d700caae7396ece96604440577da4f3aa22aeb8857f961c4cd8e06f0ae6610b',
  },

  // BLAKE2b-512. "abc": RFC 7693 Appendix A. Empty and short messages: the BLAKE2 reference
  // repository (BLAKE2/BLAKE2), testvectors/blake2-kat.json, unkeyed "blake2b" entries.
  {
    algorithm: 'blake2b-512',
    name: '"abc" (RFC 7693 Appendix A)',
    input: ABC,
    expected:
      'ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923',
  },
  {
    algorithm: 'blake2b-512',
    name: 'empty',
    input: EMPTY,
    expected:
      '786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce',
  },
  {
    algorithm: 'blake2b-512',
    name: 'bytes 00',
    input: Uint8Array.of(0x00),
    expected:
      '2fa3f686df876995167e7c2e5d74c4c7b6e48f8068fe0e44208344d480f7904c36963e44115fe3eb2a3ac8694c28bcb4f5a0f3276f2e79487d8219057a506e4b',
  },
  {
    algorithm: 'blake2b-512',
    name: 'bytes 00..1f',
    input: Uint8Array.from({ length: 32 }, (_, i) => i),
    expected:
      '5c52920a7263e39d57920ca0cb752ac6d79a04fef8a7a216a1ecb7115ce06d89fd7d735bd6f4272555dba22c2d1c96e6352322c62c5630fde0f4777a76c3de2c',
  },

  // blake2b is the alias of BLAKE2b-512: the same published values.
  {
    algorithm: 'blake2b',
    name: '"abc" (RFC 7693 Appendix A)',
    input: ABC,
    expected:
      'ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923',
  },
  {
    algorithm: 'blake2b',
    name: 'empty',
    input: EMPTY,
    expected:
      '786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce',
  },

  // BLAKE2b-256 (its own parameter block, not a truncation of BLAKE2b-512). "abc": Bouncy
  // Castle, prov/src/test/java/org/bouncycastle/jce/provider/test/DigestTest.java, abcVectors
  // "BLAKE2B-256". Empty: jart/cosmopolitan test/libc/str/blake2_test.c (which also has "abc").
  {
    algorithm: 'blake2b-256',
    name: '"abc"',
    input: ABC,
    expected: 'bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319',
  },
  {
    algorithm: 'blake2b-256',
    name: 'empty',
    input: EMPTY,
    expected: '0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8',
  },
];

/**
 * BLAKE3: BLAKE3-team/BLAKE3, test_vectors/test_vectors.json, the "hash" field of each case (131
 * bytes of extended output; the default 32-byte hash is its first 32 bytes). Input: bytes i % 251.
 */
const BLAKE3_VECTORS: ReadonlyArray<readonly [inputLength: number, extendedOutput: string]> = [
  [
    0,
    'af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262e00f03e7b69af26b7faaf09fcd333050338ddfe085b8cc869ca98b206c08243a26f5487789e8f660afe6c99ef9e0c52b92e7393024a80459cf91f476f9ffdbda7001c22e159b402631f277ca96f2defdf1078282314e763699a31c5363165421cce14d',
  ],
  [
    1,
    '2d3adedff11b61f14c886e35afa036736dcd87a74d27b5c1510225d0f592e213c3a6cb8bf623e20cdb535f8d1a5ffb86342d9c0b64aca3bce1d31f60adfa137b358ad4d79f97b47c3d5e79f179df87a3b9776ef8325f8329886ba42f07fb138bb502f4081cbcec3195c5871e6c23e2cc97d3c69a613eba131e5f1351f3f1da786545e5',
  ],
  [
    1023,
    '10108970eeda3eb932baac1428c7a2163b0e924c9a9e25b35bba72b28f70bd11a182d27a591b05592b15607500e1e8dd56bc6c7fc063715b7a1d737df5bad3339c56778957d870eb9717b57ea3d9fb68d1b55127bba6a906a4a24bbd5acb2d123a37b28f9e9a81bbaae360d58f85e5fc9d75f7c370a0cc09b6522d9c8d822f2f28f485',
  ],
  [
    1024,
    '42214739f095a406f3fc83deb889744ac00df831c10daa55189b5d121c855af71cf8107265ecdaf8505b95d8fcec83a98a6a96ea5109d2c179c47a387ffbb404756f6eeae7883b446b70ebb144527c2075ab8ab204c0086bb22b7c93d465efc57f8d917f0b385c6df265e77003b85102967486ed57db5c5ca170ba441427ed9afa684e',
  ],
  [
    1025,
    'd00278ae47eb27b34faecf67b4fe263f82d5412916c1ffd97c8cb7fb814b8444f4c4a22b4b399155358a994e52bf255de60035742ec71bd08ac275a1b51cc6bfe332b0ef84b409108cda080e6269ed4b3e2c3f7d722aa4cdc98d16deb554e5627be8f955c98e1d5f9565a9194cad0c4285f93700062d9595adb992ae68ff12800ab67a',
  ],
  [
    2048,
    'e776b6028c7cd22a4d0ba182a8bf62205d2ef576467e838ed6f2529b85fba24a9a60bf80001410ec9eea6698cd537939fad4749edd484cb541aced55cd9bf54764d063f23f6f1e32e12958ba5cfeb1bf618ad094266d4fc3c968c2088f677454c288c67ba0dba337b9d91c7e1ba586dc9a5bc2d5e90c14f53a8863ac75655461cea8f9',
  ],
  [
    2049,
    '5f4d72f40d7a5f82b15ca2b2e44b1de3c2ef86c426c95c1af0b687952256303096de31d71d74103403822a2e0bc1eb193e7aecc9643a76b7bbc0c9f9c52e8783aae98764ca468962b5c2ec92f0c74eb5448d519713e09413719431c802f948dd5d90425a4ecdadece9eb178d80f26efccae630734dff63340285adec2aed3b51073ad3',
  ],
  [
    3072,
    'b98cb0ff3623be03326b373de6b9095218513e64f1ee2edd2525c7ad1e5cffd29a3f6b0b978d6608335c09dc94ccf682f9951cdfc501bfe47b9c9189a6fc7b404d120258506341a6d802857322fbd20d3e5dae05b95c88793fa83db1cb08e7d8008d1599b6209d78336e24839724c191b2a52a80448306e0daa84a3fdb566661a37e11',
  ],
  [
    3073,
    '7124b49501012f81cc7f11ca069ec9226cecb8a2c850cfe644e327d22d3e1cd39a27ae3b79d68d89da9bf25bc27139ae65a324918a5f9b7828181e52cf373c84f35b639b7fccbb985b6f2fa56aea0c18f531203497b8bbd3a07ceb5926f1cab74d14bd66486d9a91eba99059a98bd1cd25876b2af5a76c3e9eed554ed72ea952b603bf',
  ],
  [
    4096,
    '015094013f57a5277b59d8475c0501042c0b642e531b0a1c8f58d2163229e9690289e9409ddb1b99768eafe1623da896faf7e1114bebeadc1be30829b6f8af707d85c298f4f0ff4d9438aef948335612ae921e76d411c3a9111df62d27eaf871959ae0062b5492a0feb98ef3ed4af277f5395172dbe5c311918ea0074ce0036454f620',
  ],
  [
    4097,
    '9b4052b38f1c5fc8b1f9ff7ac7b27cd242487b3d890d15c96a1c25b8aa0fb99505f91b0b5600a11251652eacfa9497b31cd3c409ce2e45cfe6c0a016967316c426bd26f619eab5d70af9a418b845c608840390f361630bd497b1ab44019316357c61dbe091ce72fc16dc340ac3d6e009e050b3adac4b5b2c92e722cffdc46501531956',
  ],
  [
    5120,
    '9cadc15fed8b5d854562b26a9536d9707cadeda9b143978f319ab34230535833acc61c8fdc114a2010ce8038c853e121e1544985133fccdd0a2d507e8e615e611e9a0ba4f47915f49e53d721816a9198e8b30f12d20ec3689989175f1bf7a300eee0d9321fad8da232ece6efb8e9fd81b42ad161f6b9550a069e66b11b40487a5f5059',
  ],
  [
    5121,
    '628bd2cb2004694adaab7bbd778a25df25c47b9d4155a55f8fbd79f2fe154cff96adaab0613a6146cdaabe498c3a94e529d3fc1da2bd08edf54ed64d40dcd6777647eac51d8277d70219a9694334a68bc8f0f23e20b0ff70ada6f844542dfa32cd4204ca1846ef76d811cdb296f65e260227f477aa7aa008bac878f72257484f2b6c95',
  ],
  [
    6144,
    '3e2e5b74e048f3add6d21faab3f83aa44d3b2278afb83b80b3c35164ebeca2054d742022da6fdda444ebc384b04a54c3ac5839b49da7d39f6d8a9db03deab32aade156c1c0311e9b3435cde0ddba0dce7b26a376cad121294b689193508dd63151603c6ddb866ad16c2ee41585d1633a2cea093bea714f4c5d6b903522045b20395c83',
  ],
  [
    6145,
    'f1323a8631446cc50536a9f705ee5cb619424d46887f3c376c695b70e0f0507f18a2cfdd73c6e39dd75ce7c1c6e3ef238fd54465f053b25d21044ccb2093beb015015532b108313b5829c3621ce324b8e14229091b7c93f32db2e4e63126a377d2a63a3597997d4f1cba59309cb4af240ba70cebff9a23d5e3ff0cdae2cfd54e070022',
  ],
  [
    7168,
    '61da957ec2499a95d6b8023e2b0e604ec7f6b50e80a9678b89d2628e99ada77a5707c321c83361793b9af62a40f43b523df1c8633cecb4cd14d00bdc79c78fca5165b863893f6d38b02ff7236c5a9a8ad2dba87d24c547cab046c29fc5bc1ed142e1de4763613bb162a5a538e6ef05ed05199d751f9eb58d332791b8d73fb74e4fce95',
  ],
  [
    7169,
    'a003fc7a51754a9b3c7fae0367ab3d782dccf28855a03d435f8cfe74605e781798a8b20534be1ca9eb2ae2df3fae2ea60e48c6fb0b850b1385b5de0fe460dbe9d9f9b0d8db4435da75c601156df9d047f4ede008732eb17adc05d96180f8a73548522840779e6062d643b79478a6e8dbce68927f36ebf676ffa7d72d5f68f050b119c8',
  ],
  [
    8192,
    'aae792484c8efe4f19e2ca7d371d8c467ffb10748d8a5a1ae579948f718a2a635fe51a27db045a567c1ad51be5aa34c01c6651c4d9b5b5ac5d0fd58cf18dd61a47778566b797a8c67df7b1d60b97b19288d2d877bb2df417ace009dcb0241ca1257d62712b6a4043b4ff33f690d849da91ea3bf711ed583cb7b7a7da2839ba71309bbf',
  ],
  [
    8193,
    'bab6c09cb8ce8cf459261398d2e7aef35700bf488116ceb94a36d0f5f1b7bc3bb2282aa69be089359ea1154b9a9286c4a56af4de975a9aa4a5c497654914d279bea60bb6d2cf7225a2fa0ff5ef56bbe4b149f3ed15860f78b4e2ad04e158e375c1e0c0b551cd7dfc82f1b155c11b6b3ed51ec9edb30d133653bb5709d1dbd55f4e1ff6',
  ],
  [
    16384,
    'f875d6646de28985646f34ee13be9a576fd515f76b5b0a26bb324735041ddde49d764c270176e53e97bdffa58d549073f2c660be0e81293767ed4e4929f9ad34bbb39a529334c57c4a381ffd2a6d4bfdbf1482651b172aa883cc13408fa67758a3e47503f93f87720a3177325f7823251b85275f64636a8f1d599c2e49722f42e93893',
  ],
  [
    31744,
    '62b6960e1a44bcc1eb1a611a8d6235b6b4b78f32e7abc4fb4c6cdcce94895c47860cc51f2b0c28a7b77304bd55fe73af663c02d3f52ea053ba43431ca5bab7bfea2f5e9d7121770d88f70ae9649ea713087d1914f7f312147e247f87eb2d4ffef0ac978bf7b6579d57d533355aa20b8b77b13fd09748728a5cc327a8ec470f4013226f',
  ],
  [
    102400,
    'bc3e3d41a1146b069abffad3c0d44860cf664390afce4d9661f7902e7943e085e01c59dab908c04c3342b816941a26d69c2605ebee5ec5291cc55e15b76146e6745f0601156c3596cb75065a9c57f35585a52e1ac70f69131c23d611ce11ee4ab1ec2c009012d236648e77be9295dd0426f29b764d65de58eb7d01dd42248204f45f8e',
  ],
];

/** Length of the BLAKE3 vectors' extended output, in bytes. */
const BLAKE3_EXTENDED_LENGTH = 131;

function assertCryptoError(fn: () => unknown, code: CryptoError['code'], field: string): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof CryptoError, `expected a CryptoError, got ${String(error)}`);
    assert.equal(error.code, code);
    assert.equal(error.field, field);
    return true;
  });
}

describe('digest: published known answers', () => {
  for (const vector of KNOWN_ANSWERS) {
    const length = vector.length === undefined ? '' : `, length ${vector.length}`;
    test(`${vector.algorithm} of ${vector.name}${length}`, () => {
      assert.equal(hex(digest(vector.algorithm, vector.input, vector.length)), vector.expected);
    });
  }

  test('every algorithm in HASH_ALGORITHMS has at least one published known answer', () => {
    const covered = new Set<string>(KNOWN_ANSWERS.map((vector) => vector.algorithm));
    if (BLAKE3_VECTORS.length > 0) {
      covered.add('blake3');
    }
    const missing = HASH_ALGORITHM_IDS.filter((id) => !covered.has(id));
    assert.deepEqual(missing, []);
    assert.ok(HASH_ALGORITHM_IDS.length > 0);
  });

  test('the blake2b alias gives the same output as blake2b-512 for any input', () => {
    for (const input of [EMPTY, ABC, MSG_896, randomBytes(1000)]) {
      assert.deepEqual(digest('blake2b', input), digest('blake2b-512', input));
    }
  });

  test('fixed digests have the output length of their parameter table entry', () => {
    for (const id of HASH_ALGORITHM_IDS) {
      const spec = HASH_ALGORITHMS[id];
      const expected = spec.kind === 'fixed' ? spec.outputLength : spec.defaultLength;
      assert.equal(digest(id, ABC).byteLength, expected, id);
      assert.equal(isExtendable(id), spec.kind === 'xof', id);
    }
  });
});

describe('digest: BLAKE3 official test vectors (BLAKE3-team/BLAKE3 test_vectors.json)', () => {
  test('the embedded vectors are well formed (131-byte outputs, distinct lengths)', () => {
    for (const [inputLength, output] of BLAKE3_VECTORS) {
      assert.match(output, /^[0-9a-f]+$/, String(inputLength));
      assert.equal(output.length, BLAKE3_EXTENDED_LENGTH * 2, String(inputLength));
    }
    assert.equal(new Set(BLAKE3_VECTORS.map(([inputLength]) => inputLength)).size, BLAKE3_VECTORS.length);
  });

  for (const [inputLength, output] of BLAKE3_VECTORS) {
    test(`input length ${inputLength}: default 32-byte hash and 131-byte extended output`, () => {
      const input = blake3Input(inputLength);
      assert.equal(hex(digest('blake3', input)), output.slice(0, 64));
      assert.equal(hex(digest('blake3', input, BLAKE3_EXTENDED_LENGTH)), output);
    });
  }

  test('an explicit length of 32 equals the default output', () => {
    const input = blake3Input(1025);
    assert.deepEqual(digest('blake3', input, 32), digest('blake3', input));
  });
});

describe('digest: extendable-output lengths at the bounds', () => {
  test('length 1 is the first byte of the published output', () => {
    const [, blake3Empty] = BLAKE3_VECTORS[0] ?? assert.fail('no BLAKE3 vectors');
    assert.equal(hex(digest('blake3', EMPTY, 1)), blake3Empty.slice(0, 2));
    assert.equal(hex(digest('shake128', EMPTY, 1)), '7f');
    assert.equal(hex(digest('shake256', EMPTY, 1)), '46');
  });

  test(`length ${MAX_XOF_LENGTH} (the maximum) gives that many bytes, beginning with the published output`, () => {
    assert.equal(MAX_XOF_LENGTH, 1024);
    const [, blake3Empty] = BLAKE3_VECTORS[0] ?? assert.fail('no BLAKE3 vectors');
    const blake3 = digest('blake3', EMPTY, MAX_XOF_LENGTH);
    assert.equal(blake3.byteLength, MAX_XOF_LENGTH);
    assert.ok(hex(blake3).startsWith(blake3Empty));
    const shake = digest('shake256', EMPTY, MAX_XOF_LENGTH);
    assert.equal(shake.byteLength, MAX_XOF_LENGTH);
    assert.ok(hex(shake).startsWith('46b9dd2b0ba88d13233b3feb743eeb243fcd52ea62b81b82b50c27646ed5762f'));
  });
});

describe('digest: errors', () => {
  test('an unsupported or insecure algorithm id is UNSUPPORTED_ALGORITHM on /algorithm', () => {
    for (const id of ['md5', 'sha1', 'sha-1', 'sha224', 'ripemd160', 'SHA256', 'sha-256', 'blake2s', '', ' sha256']) {
      assertCryptoError(() => digest(id, ABC), 'UNSUPPORTED_ALGORITHM', '/algorithm');
    }
  });

  test('names inherited from Object.prototype are not algorithms', () => {
    for (const id of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      assertCryptoError(() => digest(id, ABC), 'UNSUPPORTED_ALGORITHM', '/algorithm');
    }
  });

  test('a length on a fixed-size digest, other than its own size, is INVALID_INPUT on /length', () => {
    for (const id of HASH_ALGORITHM_IDS) {
      const spec = HASH_ALGORITHMS[id];
      if (spec.kind !== 'fixed') {
        continue;
      }
      for (const length of [0, 1, spec.outputLength - 1, spec.outputLength + 1, 1024, 1.5]) {
        assertCryptoError(() => digest(id, ABC, length), 'INVALID_INPUT', '/length');
      }
    }
  });

  test("a length equal to a fixed digest's own size is accepted and changes nothing", () => {
    assert.equal(hex(digest('sha256', ABC, 32)), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    for (const id of HASH_ALGORITHM_IDS) {
      const spec = HASH_ALGORITHMS[id];
      if (spec.kind === 'fixed') {
        assert.deepEqual(digest(id, MSG_448, spec.outputLength), digest(id, MSG_448), id);
      }
    }
  });

  test('an extendable-output length of 0, above the maximum, or not an integer is INVALID_INPUT on /length', () => {
    for (const id of ['blake3', 'shake128', 'shake256']) {
      for (const length of [
        0,
        -1,
        MAX_XOF_LENGTH + 1,
        1025,
        2 ** 31,
        1.5,
        32.000001,
        Number.NaN,
        Number.POSITIVE_INFINITY,
      ]) {
        assertCryptoError(() => digest(id, ABC, length), 'INVALID_INPUT', '/length');
      }
    }
  });
});

describe('digest: differential check against independent implementations, random inputs of 0..300 bytes', () => {
  const inputs = Array.from({ length: 301 }, (_, length) => randomBytes(length));
  const noble: ReadonlyArray<readonly [HashAlgorithm, (data: Uint8Array) => Uint8Array]> = [
    ['sha256', (data) => sha256(data)],
    ['sha384', (data) => sha384(data)],
    ['sha512', (data) => sha512(data)],
    ['sha512-256', (data) => sha512_256(data)],
    ['sha3-256', (data) => sha3_256(data)],
    ['sha3-384', (data) => sha3_384(data)],
    ['sha3-512', (data) => sha3_512(data)],
    ['shake128', (data) => shake128(data, { dkLen: 32 })],
    ['shake256', (data) => shake256(data, { dkLen: 64 })],
  ];

  for (const [algorithm, reference] of noble) {
    test(`${algorithm} equals @noble/hashes`, () => {
      for (const input of inputs) {
        assert.equal(hex(digest(algorithm, input)), hex(reference(input)), `input length ${input.byteLength}`);
      }
    });
  }

  test('shake128 and shake256 equal @noble/hashes at output lengths 1..300', () => {
    for (let length = 1; length <= 300; length += 1) {
      const input = inputs[length] ?? assert.fail('missing input');
      assert.equal(
        hex(digest('shake128', input, length)),
        hex(shake128(input, { dkLen: length })),
        `shake128 length ${length}`,
      );
      assert.equal(
        hex(digest('shake256', input, length)),
        hex(shake256(input, { dkLen: length })),
        `shake256 length ${length}`,
      );
    }
  });

  test('blake2b-512 and blake2b equal node:crypto blake2b512', () => {
    for (const input of inputs) {
      const expected = createHash('blake2b512').update(input).digest('hex');
      assert.equal(hex(digest('blake2b-512', input)), expected, `input length ${input.byteLength}`);
      assert.equal(hex(digest('blake2b', input)), expected, `input length ${input.byteLength}`);
    }
  });
});
