/**
 * The service's formats without the network, for browsers, Workers, Deno, Bun and Node. Each
 * function takes the request body of its route and returns what the route answers in `data`.
 */
export { AEAD_ALGORITHM, decrypt, encrypt, secretboxOpen, secretboxSeal } from './aead.ts';
export type { AeadAlgorithm, DecryptInput, EncryptInput, Sealed } from './aead.ts';
export { SEALED_BOX_ALGORITHM, sealedBoxOpen, sealedBoxSeal } from './sealed-box.ts';
export type { SealedBoxAlgorithm, SealedBoxOpenInput, SealedBoxSealInput } from './sealed-box.ts';
export { PQ_SEALED_BOX_ALGORITHM, pqSealedBoxOpen, pqSealedBoxSeal } from './pq-sealed-box.ts';
export type { PqSealedBoxAlgorithm, PqSealedBoxOpenInput, PqSealedBoxSealInput } from './pq-sealed-box.ts';
export { HASH_ALGORITHMS, MAX_XOF_LENGTH, hash } from './hash.ts';
export type { HashAlgorithm, HashInput } from './hash.ts';
export { MAC_ALGORITHMS, hmac, hmacVerify } from './hmac.ts';
export type { HmacInput, HmacVerifyInput, MacAlgorithm } from './hmac.ts';
export { VERIFY_ALGORITHMS, verify } from './verify.ts';
export type { VerifyAlgorithm, VerifyInput } from './verify.ts';
export { EdgeCryptoError } from './errors.ts';
export type { EdgeErrorCode } from './errors.ts';
export { base64ToBytes, bytesToBase64, bytesToHex, hexToBytes } from './encoding.ts';
export type { BinaryInput, TextEncoding } from './encoding.ts';
