/**
 * Micro-benchmarks of packages/core: operations per second per primitive and input size, and the
 * native/@noble ratio wherever core could use either backend, which is where its size thresholds
 * come from (NATIVE_AEAD_THRESHOLD, the HMAC and HKDF crossovers).
 *
 *   node bench/micro.ts                       everything (a few minutes)
 *   node bench/micro.ts --only xchacha        sections whose title contains "xchacha"
 *   node bench/micro.ts --rounds 9 --round-ms 200
 *   node bench/micro.ts --clock cpu           rates from the process's CPU time, not the wall clock
 *
 * It prints figures and asserts nothing: timing assertions on a shared machine would be flaky
 * tests, not information. Each figure is the median of several timed rounds, and compared backends
 * run in alternating rounds so that their ratio is measured under the same conditions. It runs on
 * Node 22 too, where native Argon2id reads "n/a".
 */
import { createCipheriv, createHash, createHmac, hash as oneShotHash, randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { sha256 } from '@noble/hashes/sha2.js';
import { blake2b } from '@noble/hashes/blake2.js';
import { aeskw, aeskwp } from '@noble/ciphers/aes.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { ed448 } from '@noble/curves/ed448.js';
import { p256, p384 } from '@noble/curves/nist.js';
import { x25519 } from '@noble/curves/ed25519.js';
import {
  argon2Raw,
  availableArgon2Backends,
  bytesToHex,
  computeHmac,
  digest,
  HASH_ALGORITHM_IDS,
  hkdfRaw,
  multiRecipientEncrypt,
  NATIVE_AEAD_THRESHOLD,
  oneShotDigest,
  openBox,
  pbkdf2Raw,
  scryptRaw,
  sealBox,
  SIGNATURE_SCHEMES,
  signMessage,
  unwrapKey,
  verifySignature,
  wrapKey,
  xchachaOpen,
  xchachaSeal,
  type AeadBackend,
  type Argon2Backend,
  type Argon2Params,
} from '@crypto-service/core';
// The nonce pool is internal to core: no public entry point exposes it on its own.
import { randomNonce } from '../packages/core/src/nonces.ts';
import {
  compare,
  measure,
  type Clock,
  type Comparison,
  type Measurement,
  type MeasureOptions,
  type Operation,
} from './lib/measure.ts';
import { describeMachine, loadAverage } from './lib/machine.ts';
import { formatBytes, formatCount, formatMs, formatRatioRange, markdownTable, print } from './lib/stats.ts';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    'round-ms': { type: 'string', default: '100' },
    only: { type: 'string' },
    clock: { type: 'string', default: 'wall' },
  },
});
if (args.clock !== 'wall' && args.clock !== 'cpu') throw new Error('--clock must be wall or cpu');
const CLOCK: Clock = args.clock;
const ROUNDS = Math.max(5, Number(args.rounds));
const ROUND_MS = Number(args['round-ms']);
const FAST: MeasureOptions = { rounds: ROUNDS, roundMs: ROUND_MS, clock: CLOCK };
/** Argon2id, scrypt, PBKDF2: one call per round (each call is 10–500 ms already). */
const SLOW: MeasureOptions = { rounds: ROUNDS, roundMs: 0, clock: CLOCK };

const SIZES = [16, 256, 1024, 4096, 65536, 1048576];
/** Denser around NATIVE_AEAD_THRESHOLD, where the two XChaCha backends cross. */
const AEAD_SIZES = [16, 64, 256, 512, 1024, 1536, 2048, 3072, 4096, 8192, 16384, 65536, 1048576];

const bytes = (length: number) => new Uint8Array(randomBytes(length));
const inputs = new Map<number, Uint8Array>();
const input = (length: number) =>
  inputs.get(length) ?? (inputs.set(length, bytes(length)), inputs.get(length) as Uint8Array);

// ---------------------------------------------------------------------------------------------
// Sections and output

interface PairRow {
  label: string;
  size?: number;
  a: Operation;
  b: Operation;
}
interface SingleRow {
  label: string;
  size?: number;
  operation: Operation;
}

function selected(title: string): boolean {
  return args.only === undefined || title.toLowerCase().includes(args.only.toLowerCase());
}

function sizeCell(size: number | undefined): string {
  return size === undefined ? '' : formatBytes(size);
}

/** ops/s with the time per operation, which reads better for slow operations. */
function rate(measurement: Measurement): string {
  return `${formatCount(measurement.opsPerSecond)} (${formatMs(1000 / measurement.opsPerSecond)})`;
}

async function pairSection(
  title: string,
  labels: [string, string],
  rows: PairRow[],
  options = FAST,
): Promise<Map<string, Comparison>> {
  const results = new Map<string, Comparison>();
  if (!selected(title)) return results;
  const table: string[][] = [];
  for (const row of rows) {
    const result = await compare(row.a, row.b, options);
    results.set(`${row.label}@${row.size ?? ''}`, result);
    table.push([
      row.label,
      sizeCell(row.size),
      rate(result.a),
      rate(result.b),
      formatRatioRange(result.ratios),
      `±${Math.max(result.a.spread, result.b.spread).toFixed(0)} %`,
    ]);
  }
  const [a, b] = labels;
  print(
    `### ${title}\n\n${markdownTable(['Operation', 'Size', `${a} ops/s (per op)`, `${b} ops/s (per op)`, `${a}/${b} (range)`, 'spread'], table)}\n`,
  );
  return results;
}

async function singleSection(title: string, rows: SingleRow[], options = FAST): Promise<void> {
  if (!selected(title)) return;
  const table: string[][] = [];
  for (const row of rows) {
    const result = await measure(row.operation, options);
    table.push([
      row.label,
      sizeCell(row.size),
      formatCount(result.opsPerSecond),
      formatMs(1000 / result.opsPerSecond),
      `±${result.spread.toFixed(0)} %`,
    ]);
  }
  print(`### ${title}\n\n${markdownTable(['Operation', 'Size', 'ops/s', 'per op', 'spread'], table)}\n`);
}

/**
 * Where native overtakes @noble: the first measured size from which native/noble stays at or above
 * 1, and a log-linear interpolation between it and the size below (a rough point estimate).
 */
function crossover(sizes: number[], ratios: number[]): string {
  const index = ratios.findIndex((_, i) => ratios.slice(i).every((ratio) => ratio >= 1));
  if (index === -1) return 'native never overtakes @noble in the measured range';
  if (index === 0) return `native is ahead from the smallest size measured (${formatBytes(sizes[0] as number)})`;
  const [s0, s1] = [sizes[index - 1] as number, sizes[index] as number];
  const [r0, r1] = [Math.log(ratios[index - 1] as number), Math.log(ratios[index] as number)];
  const estimate = 2 ** (Math.log2(s0) + ((0 - r0) / (r1 - r0)) * (Math.log2(s1) - Math.log2(s0)));
  return `between ${formatBytes(s0)} and ${formatBytes(s1)} (≈ ${Math.round(estimate)} B by log-linear interpolation)`;
}

// ---------------------------------------------------------------------------------------------
// The benchmarks

print(
  `# Micro-benchmarks of packages/core\n\n${describeMachine()}\n- rounds: ${ROUNDS} × ~${ROUND_MS} ms per operation (slow KDFs: ${ROUNDS} single calls); clock: ${CLOCK === 'wall' ? 'wall (elapsed time)' : 'CPU time of the whole process'}; figures are medians; "range" is the lowest–highest per-round ratio; "spread" is half the min–max range of the per-round rates\n`,
);

await pairSection(
  'Hash: SHA-256 (core digest = node:crypto one-shot hash vs @noble/hashes)',
  ['native', '@noble'],
  SIZES.map((size) => ({
    label: 'sha256',
    size,
    a: () => digest('sha256', input(size)),
    b: () => sha256(input(size)),
  })),
);

await pairSection(
  'Hash: BLAKE2b-512 (core digest = OpenSSL blake2b512 vs @noble/hashes)',
  ['native', '@noble'],
  SIZES.map((size) => ({
    label: 'blake2b-512',
    size,
    a: () => digest('blake2b-512', input(size)),
    b: () => blake2b(input(size)),
  })),
);

await singleSection(
  'Hash: every algorithm of /v2/hash through core digest()',
  HASH_ALGORITHM_IDS.filter((id) => id !== 'blake2b').flatMap((algorithm) =>
    [1024, 65536].map((size) => ({ label: algorithm, size, operation: () => digest(algorithm, input(size)) })),
  ),
);

// The fixed cost of a node:crypto object, which decides every small-input native/noble ratio below
// (XChaCha20-Poly1305, HMAC, key wrap). It differs a lot between Node 22 and Node 24.
const small = input(48);
const setupKey = bytes(32);
const setupIv = bytes(12);
await singleSection(
  'node:crypto per-call setup (48-byte input; the fixed cost under the native AEAD, HMAC and key-wrap rows)',
  [
    { label: 'crypto.hash(sha256) one-shot', size: 48, operation: () => oneShotHash('sha256', small, 'buffer') },
    {
      label: 'createHash(sha256).update().digest()',
      size: 48,
      operation: () => createHash('sha256').update(small).digest(),
    },
    {
      label: 'createHmac(sha256).update().digest()',
      size: 48,
      operation: () => createHmac('sha256', setupKey).update(small).digest(),
    },
    {
      label: "createCipheriv('chacha20-poly1305') only",
      operation: () => createCipheriv('chacha20-poly1305', setupKey, setupIv, { authTagLength: 16 }),
    },
    {
      label: "createCipheriv('id-aes256-wrap') only",
      operation: () => createCipheriv('id-aes256-wrap', setupKey, Buffer.from('a6a6a6a6a6a6a6a6', 'hex')),
    },
  ],
);

// Why core takes nonces from a pool of CSPRNG output rather than asking for each.
await pairSection(
  'Random 24-byte nonce (core randomNonce, from a 4 KiB pool, vs node:crypto randomBytes per call)',
  ['pool', 'randomBytes'],
  [{ label: 'nonce', size: 24, a: () => randomNonce(24), b: () => randomBytes(24) }],
);

// A fresh small array (a digest, a key) encoded for the response: core copies it, because a Buffer
// view would first make V8 create the array's backing store (codec.ts). Both rows include the digest.
const viewHex = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
await pairSection(
  'Encode 32 bytes fresh from SHA-256 as hex (core bytesToHex, a copy, vs a Buffer view)',
  ['copy', 'view'],
  [
    {
      label: 'sha256 + hex',
      size: 48,
      a: () => bytesToHex(oneShotDigest('sha256', small)),
      b: () => viewHex(oneShotDigest('sha256', small)),
    },
  ],
);

// XChaCha20-Poly1305: the figures that decide NATIVE_AEAD_THRESHOLD.
const aeadKey = bytes(32);
const aeadSeal = (backend: AeadBackend, size: number) => () =>
  xchachaSeal(aeadKey, input(size), undefined, { backend });
const sealedBySize = new Map(AEAD_SIZES.map((size) => [size, xchachaSeal(aeadKey, input(size))]));
const aeadOpen = (backend: AeadBackend, size: number) => () =>
  xchachaOpen(aeadKey, sealedBySize.get(size) as Uint8Array, undefined, { backend });

const sealTitle = 'XChaCha20-Poly1305 seal (core xchachaSeal, backend native vs noble)';
const seal = await pairSection(
  sealTitle,
  ['native', 'noble'],
  AEAD_SIZES.map((size) => ({ label: 'seal', size, a: aeadSeal('native', size), b: aeadSeal('noble', size) })),
);
const openTitle = 'XChaCha20-Poly1305 open (core xchachaOpen, backend native vs noble)';
const open = await pairSection(
  openTitle,
  ['native', 'noble'],
  AEAD_SIZES.map((size) => ({ label: 'open', size, a: aeadOpen('native', size), b: aeadOpen('noble', size) })),
);
if (seal.size > 0 && open.size > 0) {
  const ratiosOf = (results: Map<string, Comparison>, label: string) =>
    AEAD_SIZES.map((size) => (results.get(`${label}@${size}`) as Comparison).ratio);
  print(
    `XChaCha20-Poly1305 crossover (native/noble ≥ 1 from then on), NATIVE_AEAD_THRESHOLD = ${NATIVE_AEAD_THRESHOLD} B:\n` +
      `- seal: ${crossover(AEAD_SIZES, ratiosOf(seal, 'seal'))}\n- open: ${crossover(AEAD_SIZES, ratiosOf(open, 'open'))}\n`,
  );
}

const x25519Pair = () => {
  const secretKey = x25519.utils.randomSecretKey();
  return { secretKey, publicKey: x25519.getPublicKey(secretKey) };
};
const boxRecipient = x25519Pair();
const boxes = new Map([16, 1024, 65536].map((size) => [size, sealBox(boxRecipient.publicKey, input(size))]));
await singleSection(
  'Sealed box (X25519 + XSalsa20-Poly1305, libsodium crypto_box_seal format)',
  [16, 1024, 65536].flatMap((size) => [
    { label: 'seal', size, operation: () => sealBox(boxRecipient.publicKey, input(size)) },
    { label: 'open', size, operation: () => openBox(boxRecipient.secretKey, boxes.get(size) as Uint8Array) },
  ]),
);

const kek = bytes(32);
const keyToWrap = bytes(32);
const oddKey = bytes(20);
const wrappedKw = wrapKey('aes-kw', kek, keyToWrap);
const wrappedKwp = wrapKey('aes-kwp', kek, oddKey);
await pairSection(
  'Key wrap, AES-256 KEK (core = OpenSSL id-aes256-wrap[-pad] vs @noble/ciphers, table-based AES)',
  ['native', '@noble'],
  [
    {
      label: 'aes-kw wrap',
      size: 32,
      a: () => wrapKey('aes-kw', kek, keyToWrap),
      b: () => aeskw(kek).encrypt(keyToWrap),
    },
    {
      label: 'aes-kw unwrap',
      size: 32,
      a: () => unwrapKey('aes-kw', kek, wrappedKw),
      b: () => aeskw(kek).decrypt(wrappedKw),
    },
    { label: 'aes-kwp wrap', size: 20, a: () => wrapKey('aes-kwp', kek, oddKey), b: () => aeskwp(kek).encrypt(oddKey) },
    {
      label: 'aes-kwp unwrap',
      size: 20,
      a: () => unwrapKey('aes-kwp', kek, wrappedKwp),
      b: () => aeskwp(kek).decrypt(wrappedKwp),
    },
  ],
);

// Signatures: core imports the private key on every call (the service is stateless; private keys
// are never cached) and caches imported public keys, so verify here hits that cache as a client
// that keeps verifying against one key would.
const message = input(256);
const signatureRows: PairRow[] = [];
for (const [algorithm, noble] of [
  ['ed25519', ed25519],
  ['ed448', ed448],
  ['ecdsa-p256', p256],
  ['ecdsa-p384', p384],
] as const) {
  const pair = await SIGNATURE_SCHEMES[algorithm].generate();
  const signature = await signMessage(algorithm, pair.privateKey, message);
  const noblePublic = noble.getPublicKey(pair.privateKey);
  const nobleSignature = noble.sign(message, pair.privateKey);
  signatureRows.push(
    {
      label: `${algorithm} sign`,
      size: 256,
      a: () => signMessage(algorithm, pair.privateKey, message),
      b: () => noble.sign(message, pair.privateKey),
    },
    {
      label: `${algorithm} verify`,
      size: 256,
      a: () => verifySignature(algorithm, pair.publicKey, message, signature),
      b: () => noble.verify(nobleSignature, message, noblePublic),
    },
  );
}
await pairSection(
  'Signatures (core signMessage / verifySignature = node:crypto vs @noble/curves)',
  ['native', '@noble'],
  signatureRows,
);

// core's computeHmac with each backend forced. The server's thresholds (NOBLE_HMAC_BELOW) sit
// lower than this loop's crossovers, because a native HMAC costs more to set up inside the busy
// server (docs/performance.md, "HMAC").
const macKey = bytes(32);
await pairSection(
  'HMAC (core computeHmac, backend native = node:crypto createHmac vs noble = @noble/hashes hmac)',
  ['native', 'noble'],
  (['sha256', 'sha512', 'sha3-256'] as const).flatMap((algorithm) =>
    [16, 256, 1024, 4096, 16384, 65536].map((size) => ({
      label: `hmac-${algorithm}`,
      size,
      a: () => computeHmac(algorithm, macKey, input(size), { backend: 'native' }),
      b: () => computeHmac(algorithm, macKey, input(size), { backend: 'noble' }),
    })),
  ),
);

const ikm = bytes(32);
const salt = bytes(32);
const info = bytes(16);
await pairSection(
  'HKDF-SHA256, 32-byte output (core hkdfRaw, backend native = node:crypto hkdfSync vs noble = @noble/hashes hkdf)',
  ['native', 'noble'],
  [
    {
      label: 'hkdf-sha256',
      size: 32,
      a: () => hkdfRaw('sha256', ikm, salt, info, 32, { backend: 'native' }),
      b: () => hkdfRaw('sha256', ikm, salt, info, 32, { backend: 'noble' }),
    },
  ],
);

const manyRecipients = Array.from({ length: 100 }, x25519Pair);
const recipientsOf = (count: number) =>
  manyRecipients.slice(0, count).map((pair) => ({ type: 'x25519', publicKey: pair.publicKey }));
await singleSection('Multi-recipient envelopes (HPKE with X25519 per recipient, XChaCha20-Poly1305 payload)', [
  {
    label: 'multi-recipient encrypt, 1 recipient',
    size: 1024,
    operation: () => multiRecipientEncrypt(input(1024), recipientsOf(1)),
  },
  {
    label: 'multi-recipient encrypt, 10 recipients',
    size: 1024,
    operation: () => multiRecipientEncrypt(input(1024), recipientsOf(10)),
  },
  {
    label: 'multi-recipient encrypt, 100 recipients',
    size: 1024,
    operation: () => multiRecipientEncrypt(input(1024), recipientsOf(100)),
  },
]);

// Argon2id: native crypto.argon2 (Node 24) against @node-rs/argon2, both asynchronous on their
// own threads, one call at a time.
const ARGON2_FLOOR: Argon2Params = { m: 19456, t: 2, p: 1 };
const ARGON2_DEFAULT: Argon2Params = { m: 65536, t: 3, p: 4 };
const argon2 = (params: Argon2Params, backend: Argon2Backend) => () =>
  argon2Raw({ variant: 'argon2id', password: input(16), salt: input(16), params, tagLength: 32 }, backend);
const argon2Title = 'Argon2id, one call at a time (native node:crypto argon2 vs @node-rs/argon2)';
if (availableArgon2Backends().includes('native')) {
  await pairSection(
    argon2Title,
    ['native', '@node-rs'],
    [
      {
        label: 'argon2id m=19456,t=2,p=1 (floor)',
        a: argon2(ARGON2_FLOOR, 'native'),
        b: argon2(ARGON2_FLOOR, 'node-rs'),
      },
      {
        label: 'argon2id m=65536,t=3,p=4 (default)',
        a: argon2(ARGON2_DEFAULT, 'native'),
        b: argon2(ARGON2_DEFAULT, 'node-rs'),
      },
    ],
    SLOW,
  );
} else {
  print('(native Argon2id: n/a on this runtime, node:crypto has no argon2 before Node 24)\n');
  await singleSection(
    `${argon2Title}: @node-rs only`,
    [
      { label: 'argon2id m=19456,t=2,p=1 (floor), @node-rs', operation: argon2(ARGON2_FLOOR, 'node-rs') },
      { label: 'argon2id m=65536,t=3,p=4 (default), @node-rs', operation: argon2(ARGON2_DEFAULT, 'node-rs') },
    ],
    SLOW,
  );
}

await singleSection(
  'Slow KDFs at the service defaults (node:crypto on the thread pool, one call at a time)',
  [
    {
      label: 'scrypt N=2^17, r=8, p=1',
      size: 32,
      operation: () => scryptRaw(input(16), salt, { N: 2 ** 17, r: 8, p: 1 }, 32),
    },
    {
      label: 'pbkdf2-sha256, 600,000 iterations',
      size: 32,
      operation: () => pbkdf2Raw('sha256', input(16), salt, 600_000, 32),
    },
  ],
  SLOW,
);

print(`- load average (1/5/15 min) at the end: ${loadAverage()}`);
