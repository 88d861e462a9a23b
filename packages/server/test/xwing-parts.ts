/**
 * The parts of an X-Wing key pair, which the routes take as an alternative to the whole keys but no
 * longer return: expanded from the 32-byte seed by the draft's expandDecapsulationKey, computed
 * with @noble/post-quantum and @noble/curves (not with the service's own code).
 */
import { createHash } from 'node:crypto';
import { x25519 } from '@noble/curves/ed25519.js';
import { ml_kem768 } from '@noble/post-quantum/ml-kem.js';

export interface XWingKeyHex {
  publicKey: string;
  privateKey: string;
  x25519PublicKey: string;
  x25519PrivateKey: string;
  mlKemPublicKey: string;
  /** The 64-byte ML-KEM-768 seed d ‖ z. */
  mlKemPrivateKey: string;
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** The whole keys as /v2/pq/hybrid/keygen returns them, with their parts added (all hex). */
export function withXWingParts(pair: { publicKey: string; privateKey: string }): XWingKeyHex {
  const expanded = createHash('shake256', { outputLength: 96 }).update(Buffer.from(pair.privateKey, 'hex')).digest();
  const mlKemSeed = new Uint8Array(expanded.subarray(0, 64));
  const x25519PrivateKey = new Uint8Array(expanded.subarray(64, 96));
  return {
    publicKey: pair.publicKey,
    privateKey: pair.privateKey,
    x25519PublicKey: hex(x25519.getPublicKey(x25519PrivateKey)),
    x25519PrivateKey: hex(x25519PrivateKey),
    mlKemPublicKey: hex(ml_kem768.keygen(mlKemSeed).publicKey),
    mlKemPrivateKey: hex(mlKemSeed),
  };
}
