/**
 * Rate-limit units of every operation whose cost varies with its parameters, the one source for
 * every route that does such work, so that an operation costs the same whichever route asks for it.
 *
 * One unit is one ordinary request (a hash of a small body). Work that holds a thread for long
 * (Argon2id, scrypt, PBKDF2, SLH-DSA) is priced in heavy units: one tenth of the default Argon2id
 * hash's CPU time, so that the default hash costs what every password request used to cost, and a
 * job costs in proportion to the time it takes, whatever its parameters (docs/api.md lists the
 * rules; docs/performance.md the measurements behind them).
 *
 * A route is charged its `rateLimitCost` when the request arrives, before its body is read; the
 * handler brings the charge up to the operation's total (chargeUpTo) as soon as the body names the
 * parameters, before any work is done. So a route's declared cost is the least its operation costs.
 */
import type { FastifyReply } from 'fastify';
import {
  ARGON2_DEFAULTS,
  PBKDF2_DEFAULT_ITERATIONS,
  SCRYPT_DEFAULTS,
  X25519_KEY_LENGTH,
  type Argon2Params,
  type KdfPlan,
  type SlhDsaAlgorithm,
} from '@crypto-service/core';
import '../route-config.ts';

/** The units of a default Argon2id hash, what every password route cost before prices followed the work. */
export const DEFAULT_PASSWORD_HASH_UNITS = 10;

/**
 * Fixed prices of the post-quantum operations that do not vary with their input, and the least an
 * SLH-DSA route costs (charged before its body names the parameter set).
 */
export const PQ_RATE_LIMIT_COSTS = {
  slhDsaSign: 2,
  slhDsaKeygen: 1,
  mlDsaSign: 2,
  mlDsaKeygen: 2,
} as const;

/**
 * Argon2id: ∝ m · t. The lanes (p) split the same m KiB into p parts that one thread fills one after
 * another, so p changes neither the memory nor the CPU time.
 */
export function argon2Cost(params: Readonly<Argon2Params>): number {
  const work = params.m * params.t;
  return Math.max(1, Math.ceil((DEFAULT_PASSWORD_HASH_UNITS * work) / (ARGON2_DEFAULTS.m * ARGON2_DEFAULTS.t)));
}

/** scrypt: ∝ N · r · p. The default (N = 2^17, r = 8, p = 1) takes about twice a default Argon2id hash. */
const SCRYPT_DEFAULT_UNITS = 20;
/** PBKDF2: ∝ iterations per 32-byte block of output. The default (600,000, one block) is 3 units. */
const PBKDF2_DEFAULT_UNITS = 3;

export function scryptCost(params: { N: number; r: number; p: number }): number {
  const work = params.N * params.r * params.p;
  const defaultWork = SCRYPT_DEFAULTS.N * SCRYPT_DEFAULTS.r * SCRYPT_DEFAULTS.p;
  return Math.max(1, Math.ceil((SCRYPT_DEFAULT_UNITS * work) / defaultWork));
}

export function pbkdf2Cost(iterations: number, keyLength: number): number {
  const blocks = Math.ceil(keyLength / 32);
  return Math.max(1, Math.ceil((PBKDF2_DEFAULT_UNITS * iterations * blocks) / PBKDF2_DEFAULT_ITERATIONS));
}

/** A planned `/v2/kdf` derivation; HKDF is one ordinary request. */
export function kdfCost(plan: KdfPlan): number {
  if (plan.algorithm === 'scrypt') return scryptCost(plan.params);
  if (plan.algorithm === 'pbkdf2-sha256') return pbkdf2Cost(plan.params.iterations, plan.keyLength);
  return 1;
}

/**
 * SLH-DSA signing and key generation per parameter set, ∝ its CPU time in heavy units: the small
 * ('s') sets trade signature size for far more hashing than the fast ('f') ones, and the SHAKE
 * sets are slower than the SHA-2 ones. A signature never costs less than an ML-DSA one.
 */
const SLH_DSA_COSTS: Readonly<Record<SlhDsaAlgorithm, { sign: number; keygen: number }>> = {
  'slh-dsa-sha2-128s': { sign: 14, keygen: 2 },
  'slh-dsa-sha2-128f': { sign: 2, keygen: 1 },
  'slh-dsa-sha2-192s': { sign: 28, keygen: 3 },
  'slh-dsa-sha2-192f': { sign: 2, keygen: 1 },
  'slh-dsa-sha2-256s': { sign: 22, keygen: 2 },
  'slh-dsa-sha2-256f': { sign: 2, keygen: 1 },
  'slh-dsa-shake-128s': { sign: 40, keygen: 6 },
  'slh-dsa-shake-128f': { sign: 2, keygen: 1 },
  'slh-dsa-shake-192s': { sign: 71, keygen: 7 },
  'slh-dsa-shake-192f': { sign: 4, keygen: 1 },
  'slh-dsa-shake-256s': { sign: 62, keygen: 6 },
  'slh-dsa-shake-256f': { sign: 8, keygen: 1 },
};

function slhDsaCosts(algorithm: string): { sign: number; keygen: number } | undefined {
  return Object.hasOwn(SLH_DSA_COSTS, algorithm) ? SLH_DSA_COSTS[algorithm as SlhDsaAlgorithm] : undefined;
}

/** Total units of one signature with `algorithm` (1 for the classical schemes). */
export function signingCost(algorithm: string): number {
  const slhDsa = slhDsaCosts(algorithm);
  if (slhDsa !== undefined) return slhDsa.sign;
  if (algorithm.startsWith('ml-dsa-')) return PQ_RATE_LIMIT_COSTS.mlDsaSign;
  return 1;
}

/** Total units of one key generation for `algorithm` (1 for every other key type). */
export function keyGenerationCost(algorithm: string): number {
  const slhDsa = slhDsaCosts(algorithm);
  if (slhDsa !== undefined) return slhDsa.keygen;
  if (algorithm.startsWith('ml-dsa-')) return PQ_RATE_LIMIT_COSTS.mlDsaKeygen;
  return 1;
}

/**
 * Multi-recipient encryption or decryption, ∝ its slots: a hybrid (X-Wing) slot costs what one
 * `/v2/pq/hybrid/encapsulate` costs, an X25519 slot about half of that, on the event loop either way.
 */
export function multiRecipientCost(x25519Slots: number, hybridSlots: number): number {
  return Math.max(1, Math.ceil(hybridSlots + x25519Slots / 2));
}

/**
 * Whether a recipient or slot of a multi-recipient request is a hybrid one: named so, or (when its
 * type is left out) given with an ML-KEM part or a public key longer than an X25519 one.
 */
export function isHybridRecipient(entry: {
  type?: string | undefined;
  publicKey?: string | undefined;
  mlKemPublicKey?: string | undefined;
}): boolean {
  if (entry.type !== undefined) return entry.type !== 'x25519';
  return entry.mlKemPublicKey !== undefined || (entry.publicKey?.length ?? 0) > 2 * X25519_KEY_LENGTH;
}

/**
 * Brings this request's charge up to `total` units: the route's own cost was charged when the
 * request arrived, so only the difference is added (a 429 if that puts the client over its limit).
 */
export async function chargeUpTo(reply: FastifyReply, total: number): Promise<void> {
  const routeCost = reply.request.routeOptions.config.rateLimitCost;
  if (routeCost === false) return;
  const extra = total - (routeCost ?? 1);
  if (extra > 0) await reply.chargeRateLimit(extra);
}
