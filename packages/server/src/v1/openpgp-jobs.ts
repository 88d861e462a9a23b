/**
 * The OpenPGP work of the deprecated /v1 routes, on OpenPGP.js 6. Plain data in, plain data out,
 * so that it runs in a worker thread (worker.ts): OpenPGP.js does its S2K passphrase derivation in
 * synchronous JavaScript, which would stall the event loop if it ran there.
 *
 * What is made is what GnuPG 2.2 and later read: v4 keys, SEIPDv1 (MDC) messages, v4 signatures.
 *
 * Errors: a request fault is a CryptoError naming the field (INVALID_INPUT), and every failure to
 * decrypt a message, whatever its cause, is the one DECRYPTION_FAILED (no oracle). OpenPGP.js's
 * own messages are never passed on: they may describe the input.
 */
import * as openpgp from 'openpgp';
import { CryptoError, decryptionFailed, invalidInput } from '@crypto-service/core';
import type { V1Curve, V1RsaBits } from '@crypto-service/protocol';

/** Largest plaintext a compressed message may expand to: a zip bomb stops here. */
export const MAX_DECOMPRESSED_BYTES = 16 * 1024 * 1024;
/** Argon2 S2K (RFC 9580) memory cap: 2^18 KiB = 256 MiB, the cap of /v2's Argon2id. */
const MAX_ARGON2_MEMORY_EXPONENT = 18;
/** Secret key packets (primary + subkeys) in one private key: each may cost an S2K derivation. */
export const MAX_KEY_PACKETS = 16;
/** Passphrase-encrypted session-key packets tried per message: each costs an S2K derivation. */
export const MAX_PASSWORD_PACKETS = 8;
/**
 * Public-key session-key packets per message: each one naming the key (key IDs are public) costs a
 * private-key operation, about 1 ms; 1000 recipients is far beyond any real message.
 */
export const MAX_RECIPIENT_PACKETS = 1000;

// One configuration for every call in this thread (the worker's own copy of the module).
Object.assign(openpgp.config, {
  maxDecompressedMessageSize: MAX_DECOMPRESSED_BYTES,
  maxArgon2MemoryExponent: MAX_ARGON2_MEMORY_EXPONENT,
  // v4 keys and SEIPDv1: what GnuPG 2.2 reads (its OCB mode and RFC 9580 v6 keys are not alike).
  v6Keys: false,
  aeadProtect: false,
  showVersion: false,
  showComment: false,
});

const CURVES: Record<V1Curve, openpgp.EllipticCurveName> = {
  curve25519: 'curve25519Legacy',
  p256: 'nistP256',
  p384: 'nistP384',
  p521: 'nistP521',
};

export interface GenerateJob {
  op: 'generate';
  name: string;
  email: string;
  passphrase?: string | undefined;
  type: 'ecc' | 'rsa';
  curve: V1Curve;
  rsaBits: V1RsaBits;
  keyExpirationTime: number;
}
export interface EncryptJob {
  op: 'encrypt';
  message: string;
  publicKeys: string[];
  passphrase?: string | undefined;
  signingKey?: string | undefined;
  signingPassphrase?: string | undefined;
}
/** `privateKey` absent: the server's own key. */
export interface DecryptJob {
  op: 'decrypt';
  message: string;
  privateKey?: string | undefined;
  passphrase?: string | undefined;
  useServerKey: boolean;
}
export interface SignJob {
  op: 'sign';
  message: string;
  privateKey?: string | undefined;
  passphrase?: string | undefined;
  detached: boolean;
}
export interface VerifyJob {
  op: 'verify';
  message: string;
  signature?: string | undefined;
  publicKeys: string[];
}
export interface RevokeJob {
  op: 'revoke';
  privateKey: string;
  passphrase?: string | undefined;
  reason?: string | undefined;
}
export type V1Job = GenerateJob | EncryptJob | DecryptJob | SignJob | VerifyJob | RevokeJob;

export interface GeneratedKey {
  publicKey: string;
  privateKey: string;
  revocationCertificate: string;
  fingerprint: string;
}
export interface Verification {
  valid: boolean;
  signatures: { keyId: string; valid: boolean }[];
}
export interface V1JobResults {
  generate: GeneratedKey;
  encrypt: string;
  decrypt: string;
  sign: string;
  verify: Verification;
  revoke: { publicKey: string };
}

type ArmorLabel = 'PUBLIC KEY BLOCK' | 'PRIVATE KEY BLOCK' | 'MESSAGE' | 'SIGNED MESSAGE' | 'SIGNATURE';

/** The label of the first armor header line (`-----BEGIN PGP <label>-----`), if there is one. */
function armorLabel(text: string): string | undefined {
  return /^-----BEGIN PGP ([A-Z ]+)-----[ \t]*\r?$/m.exec(text)?.[1];
}

/** `/publicKeys/2` → `publicKeys[2]`, for messages. */
function fieldName(field: string): string {
  const [first, ...rest] = field.slice(1).split('/');
  return `${first}${rest.map((part) => `[${part}]`).join('')}`;
}

/** The field must hold an armored block of this kind; says what it holds instead when it can. */
function expectArmor(text: string, label: ArmorLabel, field: string, what: string): void {
  const found = armorLabel(text);
  const name = fieldName(field);
  if (found === label) {
    // OpenPGP.js reads the first armored block and silently drops the rest: a second recipient
    // pasted after the first would never be encrypted to. Several keys go in an array (or in one
    // block, as gpg --export writes them).
    const blocks = text.match(/^-----BEGIN PGP [A-Z ]+-----[ \t]*\r?$/gm)?.length ?? 0;
    if (blocks > 1) throw invalidInput(`${name} holds ${blocks} armored blocks; send one block per field`, field);
    return;
  }
  if (label === 'PRIVATE KEY BLOCK' && found === 'PUBLIC KEY BLOCK') {
    throw invalidInput(`${name} is a public key; this needs the private key`, field);
  }
  if (label === 'PUBLIC KEY BLOCK' && found === 'PRIVATE KEY BLOCK') {
    // Refused rather than quietly reduced to its public part: a secret key has no business here.
    throw invalidInput(`${name} is a private key; send the public key only`, field);
  }
  throw invalidInput(`${name} must be ${what} (-----BEGIN PGP ${label}-----)`, field);
}

async function readPrivateKey(armored: string, field: string): Promise<openpgp.PrivateKey> {
  expectArmor(armored, 'PRIVATE KEY BLOCK', field, 'an ASCII-armored OpenPGP private key');
  let keys: openpgp.PrivateKey[];
  try {
    keys = await openpgp.readPrivateKeys({ armoredKeys: armored });
  } catch {
    throw invalidInput(
      `${fieldName(field)} is not a readable OpenPGP private key (damaged armor or packets, or an unsupported algorithm)`,
      field,
    );
  }
  if (keys.length !== 1) throw invalidInput(`${fieldName(field)} holds ${keys.length} keys; send exactly one`, field);
  const key = keys[0]!;
  if (1 + key.subkeys.length > MAX_KEY_PACKETS) {
    throw invalidInput(`${fieldName(field)} has more than ${MAX_KEY_PACKETS - 1} subkeys`, field);
  }
  return key;
}

/**
 * The key, unlocked. A passphrase sent with a key that is not locked is ignored (it unlocks
 * nothing; the decrypt route gives it another use before calling this).
 */
async function unlock(
  key: openpgp.PrivateKey,
  passphrase: string | undefined,
  keyField: string,
  passphraseField: string,
): Promise<openpgp.PrivateKey> {
  if (key.isDecrypted()) return key;
  if (passphrase === undefined) {
    throw invalidInput(
      `${fieldName(keyField)} is locked; send its passphrase in ${fieldName(passphraseField)}`,
      passphraseField,
    );
  }
  try {
    return await openpgp.decryptKey({ privateKey: key, passphrase });
  } catch (error) {
    // OpenPGP.js wraps its errors in plain Errors (its Argon2OutOfMemoryError is not exported):
    // its message is the only way to tell a wrong passphrase from the rest. It is not passed on.
    const cause = error instanceof Error ? error.message : '';
    if (cause.includes('Argon2')) {
      throw invalidInput(
        `${fieldName(keyField)} is locked with Argon2 above this server's memory limit (256 MiB)`,
        keyField,
      );
    }
    if (cause.includes('Incorrect key passphrase')) {
      throw invalidInput(`${fieldName(passphraseField)} does not unlock ${fieldName(keyField)}`, passphraseField);
    }
    throw invalidInput(
      `${fieldName(keyField)} could not be unlocked (damaged key material, or a protection this server does not support)`,
      keyField,
    );
  }
}

/** Every key of every armored block; each block must hold public keys only. */
async function readPublicKeys(blocks: string[], field: string): Promise<openpgp.Key[]> {
  const keys: openpgp.Key[] = [];
  for (const [index, armored] of blocks.entries()) {
    const at = `${field}/${index}`;
    expectArmor(armored, 'PUBLIC KEY BLOCK', at, 'an ASCII-armored OpenPGP public key');
    try {
      keys.push(...(await openpgp.readKeys({ armoredKeys: armored })));
    } catch {
      throw invalidInput(
        `${fieldName(at)} is not a readable OpenPGP public key (damaged armor or packets, or an unsupported algorithm)`,
        at,
      );
    }
  }
  return keys;
}

async function canSign(key: openpgp.PrivateKey): Promise<boolean> {
  try {
    await key.getSigningKey();
    return true;
  } catch {
    return false;
  }
}

async function canDecrypt(key: openpgp.PrivateKey): Promise<boolean> {
  try {
    // It throws, rather than answering an empty list, when no packet can decrypt.
    return (await key.getDecryptionKeys()).length > 0;
  } catch {
    return false;
  }
}

async function signingKeyFrom(
  armored: string,
  passphrase: string | undefined,
  keyField: string,
  passphraseField: string,
): Promise<openpgp.PrivateKey> {
  const key = await unlock(await readPrivateKey(armored, keyField), passphrase, keyField, passphraseField);
  if (!(await canSign(key))) {
    throw invalidInput(
      `${fieldName(keyField)} has no valid signing key (it is expired, revoked, or has no signing-capable key)`,
      keyField,
    );
  }
  return key;
}

const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

// ---------------------------------------------------------------------------------------------
// The server's own key (CRYPTO_KEY_DIR)

/** A start-up fault in the server's key, naming the variable to fix. */
export class ServerKeyError extends Error {
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(message);
    this.name = 'ServerKeyError';
    this.variable = variable;
  }
}

export interface ServerKeyInfo {
  fingerprint: string;
  /** A passphrase was configured but the key is not locked: worth a warning, not a refusal. */
  passphraseUnused: boolean;
}

export interface ServerKey {
  key: openpgp.PrivateKey;
  info: ServerKeyInfo;
}

/**
 * Reads and unlocks the server's key once, at start. It must be one private key that can both
 * sign and decrypt now: /v1/sign and /v1/decrypt rely on it, and a key that can do neither is a
 * configuration error better found at start than on the first request.
 */
export async function loadServerKey(armored: string, passphrase: string | undefined, file: string): Promise<ServerKey> {
  let key: openpgp.PrivateKey;
  try {
    key = await readPrivateKey(armored, '/privateKey');
  } catch (error) {
    const why =
      error instanceof CryptoError && error.message.includes('holds')
        ? 'holds more than one key'
        : 'is not a readable ASCII-armored OpenPGP private key';
    throw new ServerKeyError('CRYPTO_KEY_DIR', `${file} ${why}`);
  }
  const locked = !key.isDecrypted();
  if (locked) {
    if (passphrase === undefined) {
      throw new ServerKeyError('CRYPTO_KEY_PASSPHRASE', `is not set, and the key in ${file} is locked`);
    }
    try {
      key = await openpgp.decryptKey({ privateKey: key, passphrase });
    } catch {
      throw new ServerKeyError('CRYPTO_KEY_PASSPHRASE', `does not unlock the key in ${file}`);
    }
  }
  if (!(await canSign(key))) {
    throw new ServerKeyError(
      'CRYPTO_KEY_DIR',
      `the key in ${file} cannot sign (expired, revoked, or without a signing key)`,
    );
  }
  if (!(await canDecrypt(key))) {
    throw new ServerKeyError('CRYPTO_KEY_DIR', `the key in ${file} has no encryption subkey, so it cannot decrypt`);
  }
  return { key, info: { fingerprint: key.getFingerprint(), passphraseUnused: !locked && passphrase !== undefined } };
}

// ---------------------------------------------------------------------------------------------
// The operations

async function generate(job: GenerateJob): Promise<GeneratedKey> {
  const algorithm =
    job.type === 'rsa'
      ? { type: 'rsa' as const, rsaBits: job.rsaBits }
      : { type: 'ecc' as const, curve: CURVES[job.curve] };
  const { privateKey, publicKey, revocationCertificate } = await openpgp.generateKey({
    ...algorithm,
    userIDs: [{ name: job.name, email: job.email }],
    ...(job.passphrase === undefined ? {} : { passphrase: job.passphrase }),
    keyExpirationTime: job.keyExpirationTime,
    format: 'object',
  });
  return {
    publicKey: publicKey.armor(),
    privateKey: privateKey.armor(),
    revocationCertificate,
    fingerprint: privateKey.getFingerprint(),
  };
}

async function encrypt(job: EncryptJob): Promise<string> {
  const recipients = await readPublicKeys(job.publicKeys, '/publicKeys');
  for (const [index, key] of recipients.entries()) {
    try {
      await key.getEncryptionKey();
    } catch {
      // Which block it came from is what the caller can act on; a block may hold several keys.
      throw invalidInput(
        `publicKeys: key ${key.getKeyID().toHex()} (number ${index + 1}) has no valid encryption key (it is expired, revoked, or sign-only)`,
        '/publicKeys',
      );
    }
  }
  const signingKey =
    job.signingKey === undefined
      ? undefined
      : await signingKeyFrom(job.signingKey, job.signingPassphrase, '/signingKey', '/signingPassphrase');
  // Literal data in binary mode ('b'): the exact UTF-8 bytes travel. Marked as text ('u' or 't'),
  // gpg --decrypt would turn every CRLF into LF on output (tested).
  const message = await openpgp.createMessage({ binary: utf8.encode(job.message) });
  return openpgp.encrypt({
    message,
    ...(recipients.length > 0 ? { encryptionKeys: recipients } : {}),
    ...(job.passphrase === undefined ? {} : { passwords: [job.passphrase] }),
    ...(signingKey === undefined ? {} : { signingKeys: signingKey }),
    format: 'armored',
  });
}

async function decrypt(job: DecryptJob, serverKey: ServerKey | undefined): Promise<string> {
  expectArmor(job.message, 'MESSAGE', '/message', 'an ASCII-armored OpenPGP message');
  let decryptionKey: openpgp.PrivateKey | undefined;
  let password = job.passphrase;
  if (job.privateKey !== undefined) {
    const key = await readPrivateKey(job.privateKey, '/privateKey');
    if (!key.isDecrypted()) {
      decryptionKey = await unlock(key, job.passphrase, '/privateKey', '/passphrase');
      // It unlocked the key; it is not also a message passphrase.
      password = undefined;
    } else {
      decryptionKey = key;
    }
    // About the key alone, so it says nothing about the message.
    if (!(await canDecrypt(decryptionKey))) {
      throw invalidInput('privateKey has no key that can decrypt (it is sign-only)', '/privateKey');
    }
  } else if (job.useServerKey) {
    decryptionKey = serverKey?.key;
    if (decryptionKey === undefined) throw new Error('the server key was requested but is not loaded');
  }
  // From here on every failure is the one DECRYPTION_FAILED: a damaged packet, no session key
  // that opens, a wrong passphrase, a failed integrity check.
  let message: openpgp.Message<string>;
  try {
    message = await openpgp.readMessage({ armoredMessage: job.message });
  } catch {
    throw decryptionFailed();
  }
  // Bounds on the work a crafted message can ask for (the job timeout is the last resort).
  if (
    password !== undefined &&
    message.packets.filterByTag(openpgp.enums.packet.symEncryptedSessionKey).length > MAX_PASSWORD_PACKETS
  ) {
    throw decryptionFailed();
  }
  if (message.packets.filterByTag(openpgp.enums.packet.publicKeyEncryptedSessionKey).length > MAX_RECIPIENT_PACKETS) {
    throw decryptionFailed();
  }
  let plaintext: Uint8Array;
  try {
    const result = await openpgp.decrypt({
      message,
      ...(decryptionKey === undefined ? {} : { decryptionKeys: decryptionKey }),
      ...(password === undefined ? {} : { passwords: [password] }),
      format: 'binary',
    });
    plaintext = result.data;
  } catch {
    throw decryptionFailed();
  }
  try {
    return strictUtf8.decode(plaintext);
  } catch {
    // Only a caller who could decrypt gets here, so this says nothing an attacker could use.
    throw invalidInput(
      'the decrypted message is not UTF-8 text; /v1 carries text only (use /v2 for binary data)',
      '/message',
    );
  }
}

const CleartextMessage = openpgp.CleartextMessage as unknown as new (text: string) => openpgp.CleartextMessage;

async function sign(job: SignJob, serverKey: ServerKey | undefined): Promise<string> {
  let key: openpgp.PrivateKey;
  if (job.privateKey === undefined) {
    if (serverKey === undefined) throw new Error('the server key was requested but is not loaded');
    key = serverKey.key;
  } else {
    key = await signingKeyFrom(job.privateKey, job.passphrase, '/privateKey', '/passphrase');
  }
  if (job.detached) {
    // A binary-mode signature (type 0x00) of the exact UTF-8 bytes, as gpg --detach-sign makes.
    const message = await openpgp.createMessage({ binary: utf8.encode(job.message) });
    return openpgp.sign({ message, signingKeys: key, detached: true, format: 'armored' });
  }
  // A cleartext-signed message, as gpg --clearsign makes: readable without OpenPGP software.
  // Built with the constructor (public at run time, absent from the typings): createCleartextMessage
  // refuses the empty text, which gpg --clearsign signs and the schema allows.
  const message = new CleartextMessage(job.message);
  return openpgp.sign({ message, signingKeys: key, format: 'armored' });
}

async function verify(job: VerifyJob): Promise<Verification> {
  const keys = await readPublicKeys(job.publicKeys, '/publicKeys');
  let result: openpgp.VerifyMessageResult;
  if (job.signature !== undefined) {
    expectArmor(job.signature, 'SIGNATURE', '/signature', 'an ASCII-armored detached OpenPGP signature');
    let signature: openpgp.Signature;
    try {
      signature = await openpgp.readSignature({ armoredSignature: job.signature });
    } catch {
      throw invalidInput('signature is not a readable OpenPGP signature (damaged armor or packets)', '/signature');
    }
    const message = await openpgp.createMessage({ binary: utf8.encode(job.message) });
    result = await openpgp.verify({ message, signature, verificationKeys: keys, format: 'binary' });
  } else {
    const label = armorLabel(job.message);
    if (label === 'SIGNED MESSAGE') {
      let message: openpgp.CleartextMessage;
      try {
        message = await openpgp.readCleartextMessage({ cleartextMessage: job.message });
      } catch {
        throw invalidInput(
          'message is not a readable cleartext-signed message (damaged armor or signature)',
          '/message',
        );
      }
      result = await openpgp.verify({ message, verificationKeys: keys });
    } else if (label === 'MESSAGE') {
      let message: openpgp.Message<string>;
      try {
        message = await openpgp.readMessage({ armoredMessage: job.message });
      } catch {
        throw invalidInput('message is not a readable OpenPGP message (damaged armor or packets)', '/message');
      }
      try {
        result = await openpgp.verify({ message, verificationKeys: keys, format: 'binary' });
      } catch {
        throw invalidInput(
          'message holds no readable signed data (an encrypted message must be decrypted first)',
          '/message',
        );
      }
    } else {
      throw invalidInput(
        'message must be a signed message (-----BEGIN PGP SIGNED MESSAGE----- or -----BEGIN PGP MESSAGE-----) when no signature is given; send the text and its detached signature otherwise',
        '/message',
      );
    }
  }
  const knownKeyIds = new Set(keys.flatMap((key) => key.getKeyIDs().map((id) => id.toHex())));
  const signatures: Verification['signatures'] = [];
  let anyValid = false;
  let knownFailed = false;
  for (const signature of result.signatures) {
    const keyId = signature.keyID.toHex();
    let valid: boolean;
    try {
      valid = (await signature.verified) === true;
    } catch {
      valid = false;
    }
    signatures.push({ keyId, valid });
    anyValid ||= valid;
    // A signature by a key the caller vouches for that does not verify spoils the whole message;
    // one by a key the caller did not send is only listed.
    if (!valid && knownKeyIds.has(keyId)) knownFailed = true;
  }
  return { valid: anyValid && !knownFailed, signatures };
}

async function revoke(job: RevokeJob): Promise<{ publicKey: string }> {
  const key = await unlock(
    await readPrivateKey(job.privateKey, '/privateKey'),
    job.passphrase,
    '/privateKey',
    '/passphrase',
  );
  // Reason code 0 ("no reason specified"): a hard revocation, which also voids the key's past
  // signatures. The safe reading when the caller gives only free text.
  const { publicKey } = await openpgp.revokeKey({
    key,
    reasonForRevocation: { flag: openpgp.enums.reasonForRevocation.noReason, string: job.reason ?? '' },
    format: 'armored',
  });
  return { publicKey };
}

export async function runV1Job<J extends V1Job>(
  job: J,
  serverKey: ServerKey | undefined,
): Promise<V1JobResults[J['op']]> {
  switch (job.op) {
    case 'generate':
      return generate(job) as Promise<V1JobResults[J['op']]>;
    case 'encrypt':
      return encrypt(job) as Promise<V1JobResults[J['op']]>;
    case 'decrypt':
      return decrypt(job, serverKey) as Promise<V1JobResults[J['op']]>;
    case 'sign':
      return sign(job, serverKey) as Promise<V1JobResults[J['op']]>;
    case 'verify':
      return verify(job) as Promise<V1JobResults[J['op']]>;
    case 'revoke':
      return revoke(job) as Promise<V1JobResults[J['op']]>;
    default:
      throw new Error(`unknown /v1 job ${(job as { op: unknown }).op as string}`);
  }
}
