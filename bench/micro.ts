/**
 * Micro-benchmarks of packages/core: operations per second per primitive and input size, and the
 * native/@noble ratio wherever core could use either backend, which is where its size thresholds
 * come from (NATIVE_AEAD_THRESHOLD, the HMAC and HKDF crossovers).
 *
 * Each figure is the median of several timed rounds of a calibrated batch of calls, and compared
 * operations run in alternating rounds (A B, B A, …), so that a slow stretch of the shared machine
 * hits both and their ratio is taken round by round. It prints figures and asserts nothing: timing
 * assertions on a shared machine would be flaky tests, not information.
 */
import { hash as oneShotHash, randomBytes } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { sha3_256 } from '@noble/hashes/sha3.js';
import { blake2b } from '@noble/hashes/blake2.js';
import { aeskw, aeskwp } from '@noble/ciphers/aes.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { ed448 } from '@noble/curves/ed448.js';
import { p256, p384 } from '@noble/curves/nist.js';
import {
  argon2Raw,
  availableArgon2Backends,
  bytesToHex,
  computeHmac,
  digest,
  hkdfRaw,
  NATIVE_AEAD_THRESHOLD,
  oneShotDigest,
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
  describeMachine,
  formatCount,
  formatMs,
  formatRatioRange,
  loadAverage,
  markdownTable,
  median,
  options,
  print,
} from './lib/common.ts';

const opt = options({ only: undefined, rounds: 7, 'round-ms': 100 });

// ---------------------------------------------------------------------------------------------
// The measuring loop

/** One operation; one that returns a promise is awaited, one call at a time. */
type Operation = () => unknown;
interface Prepared {
  operation: Operation;
  asynchronous: boolean;
  batch: number;
}

// Results go here so that the engine cannot drop a call whose result is never used.
let _sink: unknown;

/** Calls per second over `batch` calls. */
async function timeBatch({ operation, asynchronous, batch }: Prepared): Promise<number> {
  const start = performance.now();
  if (asynchronous) for (let i = 0; i < batch; i++) _sink = await operation();
  else for (let i = 0; i < batch; i++) _sink = operation();
  return (batch * 1000) / (performance.now() - start);
}

/** Finds whether the operation is asynchronous and how many calls fill a round (0 ms: one call); this is also its warm-up. */
async function prepare(operation: Operation, roundMs: number): Promise<Prepared> {
  const first = operation();
  const asynchronous = typeof (first as { then?: unknown } | null)?.then === 'function';
  if (asynchronous) _sink = await first;
  for (let batch = 1; ;) {
    const elapsed = (batch * 1000) / (await timeBatch({ operation, asynchronous, batch }));
    if (elapsed >= roundMs / 4)
      return { operation, asynchronous, batch: Math.max(1, Math.ceil((batch * roundMs) / elapsed)) };
    batch *= elapsed < roundMs / 40 ? 10 : 2;
  }
}

/** Times A and B in alternating rounds: their median rates and the per-round ratios A/B. */
async function compare(a: Operation, b: Operation, roundMs: number) {
  const prepared = [await prepare(a, roundMs), await prepare(b, roundMs)];
  const rates: [number[], number[]] = [[], []];
  for (let round = 0; round < opt.rounds; round++) {
    for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) rates[i]?.push(await timeBatch(prepared[i] as Prepared));
  }
  return {
    a: median(rates[0]),
    b: median(rates[1]),
    ratios: rates[0].map((rate, i) => rate / (rates[1][i] as number)),
  };
}

// ---------------------------------------------------------------------------------------------
// Sections and output

const bytes = (length: number) => new Uint8Array(randomBytes(length));
const inputs = new Map<number, Uint8Array>();
const input = (length: number): Uint8Array => inputs.get(length) ?? (inputs.set(length, bytes(length)), input(length));

function formatBytes(size: number | undefined): string {
  if (size === undefined) return '';
  if (size >= 2 ** 20 && size % 2 ** 20 === 0) return `${size / 2 ** 20} MiB`;
  return size >= 1024 && size % 1024 === 0 ? `${size / 1024} KiB` : `${size} B`;
}
/** ops/s with the time per operation, which reads better for slow operations. */
const rate = (opsPerSecond: number) => `${formatCount(opsPerSecond)} (${formatMs(1000 / opsPerSecond)})`;

/** Label, input size, A, B. */
type Row = [string, number | undefined, Operation, Operation];

/** A table of A against B; returns the median ratio per row, by `label@size`. */
async function pairSection(title: string, [a, b]: [string, string], rows: Row[], roundMs = opt['round-ms']) {
  const ratios = new Map<string, number>();
  if (opt.only !== undefined && !title.toLowerCase().includes(opt.only.toLowerCase())) return ratios;
  const table: string[][] = [];
  for (const [label, size, ...operations] of rows) {
    const { a: rateA, b: rateB, ratios: perRound } = await compare(...operations, roundMs);
    ratios.set(`${label}@${size ?? ''}`, median(perRound));
    table.push([label, formatBytes(size), rate(rateA), rate(rateB), formatRatioRange(perRound)]);
  }
  const headers = ['Operation', 'Size', `${a} ops/s (per op)`, `${b} ops/s (per op)`, `${a}/${b} (range)`];
  print(`### ${title}\n\n${markdownTable(headers, table)}\n`);
  return ratios;
}

/**
 * Where native overtakes @noble: the first measured size from which native/noble stays at or above
 * 1, and a log-linear interpolation between it and the size below.
 */
function crossover(sizes: number[], ratios: number[]): string {
  const index = ratios.findIndex((_, i) => ratios.slice(i).every((ratio) => ratio >= 1));
  if (index === -1) return 'native never overtakes @noble in the measured range';
  if (index === 0) return `native is ahead from the smallest size measured (${formatBytes(sizes[0])})`;
  const [s0, s1] = [Math.log2(sizes[index - 1] as number), Math.log2(sizes[index] as number)];
  const [r0, r1] = [Math.log(ratios[index - 1] as number), Math.log(ratios[index] as number)];
  const estimate = Math.round(2 ** (s0 + (-r0 / (r1 - r0)) * (s1 - s0)));
  return `between ${formatBytes(2 ** s0)} and ${formatBytes(2 ** s1)} (≈ ${estimate} B by log-linear interpolation)`;
}

// ---------------------------------------------------------------------------------------------
// The benchmarks

print(
  `# Micro-benchmarks of packages/core\n\n${describeMachine()}\n- ${opt.rounds} rounds of ~${opt['round-ms']} ms per operation (Argon2id: ${opt.rounds} single calls); figures are medians; "range" is the lowest–highest per-round ratio\n`,
);

const SIZES = [16, 256, 1024, 4096, 65536, 1048576];
for (const [algorithm, noble] of [
  ['sha256', sha256],
  ['sha3-256', sha3_256],
  ['blake2b-512', blake2b],
] as const) {
  await pairSection(
    `Hash: ${algorithm} (core digest = node:crypto vs @noble/hashes)`,
    ['native', '@noble'],
    SIZES.map((size) => [algorithm, size, () => digest(algorithm, input(size)), () => noble(input(size))]),
  );
}

// Why core hashes small inputs to a latin1 string (hash.ts).
const small = input(48);
const key32 = bytes(32);
const oneShot = (encoding: 'binary' | 'buffer') => () => oneShotHash('sha256', small, encoding);
await pairSection(
  "crypto.hash(sha256) one-shot of 48 bytes: 'binary' against 'buffer' output",
  ['binary', 'buffer'],
  [['sha256', 48, oneShot('binary'), oneShot('buffer')]],
);

// Why core takes nonces from a pool of CSPRNG output rather than asking for each.
await pairSection(
  'Random 24-byte nonce (core randomNonce, from a 4 KiB pool, vs randomBytes per call)',
  ['pool', 'randomBytes'],
  [['nonce', 24, () => randomNonce(24), () => randomBytes(24)]],
);

// Why core copies a fresh small array (a digest, a key) to encode it: a Buffer view would first make
// V8 create the array's backing store (codec.ts). Both rows include the digest.
const viewHex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
const fresh = () => oneShotDigest('sha256', small);
await pairSection(
  'Encode 32 bytes fresh from SHA-256 as hex (core bytesToHex, a copy, vs a Buffer view)',
  ['copy', 'view'],
  [['sha256 + hex', 48, () => bytesToHex(fresh()), () => viewHex(fresh())]],
);

// XChaCha20-Poly1305, denser around NATIVE_AEAD_THRESHOLD, where the two backends cross.
const AEAD_SIZES = [16, 64, 256, 512, 1024, 1536, 2048, 3072, 4096, 8192, 16384, 65536, 1048576];
const sealed = new Map(AEAD_SIZES.map((size) => [size, xchachaSeal(key32, input(size))]));
const aead = (direction: 'seal' | 'open', backend: AeadBackend, size: number) =>
  direction === 'seal'
    ? () => xchachaSeal(key32, input(size), undefined, { backend })
    : () => xchachaOpen(key32, sealed.get(size) as Uint8Array, undefined, { backend });
const crossovers: string[] = [];
for (const direction of ['seal', 'open'] as const) {
  const ratios = await pairSection(
    `XChaCha20-Poly1305 ${direction} (core xchacha${direction === 'seal' ? 'Seal' : 'Open'}, backend native vs noble)`,
    ['native', 'noble'],
    AEAD_SIZES.map((size) => [direction, size, aead(direction, 'native', size), aead(direction, 'noble', size)]),
  );
  const found = AEAD_SIZES.map((size) => ratios.get(`${direction}@${size}`) as number);
  if (ratios.size > 0) crossovers.push(`- ${direction}: ${crossover(AEAD_SIZES, found)}`);
}
if (crossovers.length > 0)
  print(
    `XChaCha20-Poly1305 crossover (native/noble ≥ 1 from then on), NATIVE_AEAD_THRESHOLD = ${NATIVE_AEAD_THRESHOLD} B:\n${crossovers.join('\n')}\n`,
  );

const keyToWrap = bytes(32);
const oddKey = bytes(20);
const wrappedKw = wrapKey('aes-kw', key32, keyToWrap);
const wrappedKwp = wrapKey('aes-kwp', key32, oddKey);
await pairSection(
  'Key wrap, AES-256 KEK (core = OpenSSL id-aes256-wrap[-pad] vs @noble/ciphers, table-based AES)',
  ['native', '@noble'],
  [
    ['aes-kw wrap', 32, () => wrapKey('aes-kw', key32, keyToWrap), () => aeskw(key32).encrypt(keyToWrap)],
    ['aes-kw unwrap', 32, () => unwrapKey('aes-kw', key32, wrappedKw), () => aeskw(key32).decrypt(wrappedKw)],
    ['aes-kwp wrap', 20, () => wrapKey('aes-kwp', key32, oddKey), () => aeskwp(key32).encrypt(oddKey)],
    ['aes-kwp unwrap', 20, () => unwrapKey('aes-kwp', key32, wrappedKwp), () => aeskwp(key32).decrypt(wrappedKwp)],
  ],
);

// Core imports the private key on every call (private keys are never cached) and caches imported
// public keys, so verify here hits that cache as a client that keeps verifying against one key would.
const message = input(256);
const signatureRows: Row[] = [];
for (const [algorithm, noble] of [
  ['ed25519', ed25519],
  ['ed448', ed448],
  ['ecdsa-p256', p256],
  ['ecdsa-p384', p384],
] as const) {
  const { privateKey, publicKey } = await SIGNATURE_SCHEMES[algorithm].generate();
  const signature = await signMessage(algorithm, privateKey, message);
  const noblePublic = noble.getPublicKey(privateKey);
  const nobleSignature = noble.sign(message, privateKey);
  const verify = () => verifySignature(algorithm, publicKey, message, signature);
  signatureRows.push(
    [
      `${algorithm} sign`,
      256,
      () => signMessage(algorithm, privateKey, message),
      () => noble.sign(message, privateKey),
    ],
    [`${algorithm} verify`, 256, verify, () => noble.verify(nobleSignature, message, noblePublic)],
  );
}
await pairSection(
  'Signatures (core signMessage / verifySignature = node:crypto vs @noble/curves)',
  ['native', '@noble'],
  signatureRows,
);

// The server's thresholds (NOBLE_HMAC_BELOW) sit lower than this loop's crossovers, because a native
// HMAC costs more to set up inside the busy server (docs/performance.md, "HMAC").
await pairSection(
  'HMAC (core computeHmac, backend native = node:crypto createHmac vs noble = @noble/hashes hmac)',
  ['native', 'noble'],
  (['hmac-sha256', 'hmac-sha512', 'hmac-sha3-256'] as const).flatMap((algorithm) =>
    [16, 256, 1024, 4096, 16384, 65536].map((size): Row => {
      const hmac = (backend: 'native' | 'noble') => () => computeHmac(algorithm, key32, input(size), { backend });
      return [algorithm, size, hmac('native'), hmac('noble')];
    }),
  ),
);

const ikm = bytes(32);
const info = bytes(16);
const hkdf = (backend: 'native' | 'noble') => () => hkdfRaw('sha256', ikm, key32, info, 32, { backend });
await pairSection(
  'HKDF-SHA256, 32-byte output (core hkdfRaw, backend native = node:crypto hkdfSync vs noble = @noble/hashes hkdf)',
  ['native', 'noble'],
  [['hkdf-sha256', 32, hkdf('native'), hkdf('noble')]],
);

// Argon2id, both backends asynchronous on their own threads, one call per round (each takes 10–500 ms).
const argon2 = (params: Argon2Params, backend: Argon2Backend) => () =>
  argon2Raw({ variant: 'argon2id', password: input(16), salt: input(16), params, tagLength: 32 }, backend);
if (availableArgon2Backends().includes('native')) {
  await pairSection(
    'Argon2id, one call at a time (native node:crypto argon2 vs @node-rs/argon2)',
    ['native', '@node-rs'],
    [
      { m: 19456, t: 2, p: 1, label: 'floor' },
      { m: 65536, t: 3, p: 4, label: 'default' },
    ].map(({ label, ...params }) => [
      `argon2id m=${params.m},t=${params.t},p=${params.p} (${label})`,
      undefined,
      argon2(params, 'native'),
      argon2(params, 'node-rs'),
    ]),
    0,
  );
} else {
  print('(Argon2id: node:crypto has no argon2 before Node 24)\n');
}

print(`- load average (1/5/15 min) at the end: ${loadAverage()}`);
