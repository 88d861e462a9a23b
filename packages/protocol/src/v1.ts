/**
 * The deprecated `/v1` OpenPGP routes: request and response schemas. Keys, messages
 * and signatures are ASCII-armored strings; messages and plaintexts are UTF-8 text.
 */
import { Type, type Static } from 'typebox';
import { MAX_PAYLOAD_CHARS } from './common.ts';

/**
 * Curves for `type: "ecc"`: those that both OpenPGP.js 6 (on Node, as installed) and GnuPG (2.2
 * and later) handle. `curve25519` is the classic v4 pair (EdDSA Ed25519 primary, ECDH Curve25519
 * subkey) that every GnuPG since 2.1 reads. Left out: secp256k1 (OpenPGP.js refuses it by
 * default), Brainpool (OpenPGP.js signs with it on Node only through the optional `eckey-utils`
 * package, which it does not install), and the RFC 9580 Ed448/X448 algorithms (GnuPG 2.2 cannot
 * read them).
 */
export const V1_CURVES = ['curve25519', 'p256', 'p384', 'p521'] as const;
export type V1Curve = (typeof V1_CURVES)[number];
export const V1_DEFAULT_CURVE: V1Curve = 'curve25519';

/** RSA sizes: the three with a standard security level (112, 128 and about 140 bits). */
export const V1_RSA_BITS = [2048, 3072, 4096] as const;
export type V1RsaBits = (typeof V1_RSA_BITS)[number];
/** GnuPG's default size (128-bit security, as Curve25519), at a third of the cost of 4096. */
export const V1_DEFAULT_RSA_BITS: V1RsaBits = 3072;

/** OpenPGP stores a key's lifetime as 32-bit seconds after its creation. */
export const V1_MAX_KEY_EXPIRATION_SECONDS = 0xffff_ffff;
/** Recipients of one message, or keys to verify against. */
export const V1_MAX_KEYS = 100;

/** An armored block (key, message, signature): bounded, like every text, by the largest body limit. */
function Armored(description: string) {
  return Type.String({ minLength: 1, maxLength: MAX_PAYLOAD_CHARS, description });
}

/** Text to encrypt, sign or verify (UTF-8). */
function Message(description: string) {
  return Type.String({ maxLength: MAX_PAYLOAD_CHARS, description });
}

const Passphrase = (description: string) => Type.String({ minLength: 1, maxLength: 1024, description });

/** One armored key or an array of them; one armored block may also hold several keys. */
const PublicKeys = (description: string) =>
  Type.Union(
    [
      Armored('One ASCII-armored public key block'),
      Type.Array(Armored('An ASCII-armored public key block'), { minItems: 1, maxItems: V1_MAX_KEYS }),
    ],
    { description },
  );

/** The patterns of the user ID's name and e-mail; the server puts them into words when a value does not match. */
export const V1_NAME_PATTERN = '^[^<>\\p{Cc}]+$';
// OpenPGP.js's own check (util.isEmailAddress), so that nothing it would refuse gets past.
export const V1_EMAIL_PATTERN = '^[^\\p{C}\\p{Z}@<>\\\\]+@[^\\p{C}\\p{Z}@<>\\\\]+[^\\p{C}\\p{Z}\\p{P}]$';

export const V1GenerateRequest = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 256,
      // No angle brackets (they delimit the e-mail in the user ID) and no control characters.
      pattern: V1_NAME_PATTERN,
      description: 'Name of the user ID ("Name <email>")',
    }),
    email: Type.String({
      minLength: 3,
      maxLength: 254,
      pattern: V1_EMAIL_PATTERN,
      description: 'E-mail address of the user ID',
    }),
    passphrase: Type.Optional(Passphrase('Locks the private key; omit it for an unlocked key')),
    type: Type.Optional(Type.Enum(['ecc', 'rsa'], { default: 'ecc', description: 'ecc (default) or rsa' })),
    // No schema defaults on curve and rsaBits (the server fills schema defaults in): a curve sent
    // with type rsa, or rsaBits with type ecc, must stay visible so that it can be refused.
    curve: Type.Optional(
      Type.Enum([...V1_CURVES], {
        description:
          'Curve for type ecc: curve25519 (Ed25519 signing key, X25519 encryption subkey; default), or the NIST curves p256, p384, p521 (ECDSA and ECDH)',
      }),
    ),
    rsaBits: Type.Optional(
      Type.Enum([...V1_RSA_BITS], { description: 'Modulus size for type rsa: 2048, 3072 (default) or 4096' }),
    ),
    keyExpirationTime: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: V1_MAX_KEY_EXPIRATION_SECONDS,
        description: 'Lifetime of the key in seconds from now; 0 or absent: it never expires',
      }),
    ),
  },
  { additionalProperties: false },
);
export type V1GenerateRequest = Static<typeof V1GenerateRequest>;

export const V1GenerateResponse = Type.Object(
  {
    data: Type.Object(
      {
        publicKey: Type.String({ description: 'ASCII-armored public key' }),
        privateKey: Type.String({
          description: 'ASCII-armored private key, locked with the passphrase when one was given',
        }),
        revocationCertificate: Type.String({
          description: 'ASCII-armored revocation certificate: import it to revoke the key',
        }),
        fingerprint: Type.String({ description: 'Fingerprint of the primary key (40 lowercase hex digits)' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type V1GenerateResponse = Static<typeof V1GenerateResponse>;

export const V1EncryptRequest = Type.Object(
  {
    message: Message('The text to encrypt (UTF-8)'),
    publicKeys: Type.Optional(PublicKeys('Recipients: one armored public key or an array of them')),
    passphrase: Type.Optional(
      Passphrase('Encrypts for this passphrase too (symmetric); publicKeys, passphrase or both'),
    ),
    signingKey: Type.Optional(Armored('Signs the message before encrypting it: an armored private key')),
    signingPassphrase: Type.Optional(Passphrase('Unlocks signingKey')),
  },
  { additionalProperties: false },
);
export type V1EncryptRequest = Static<typeof V1EncryptRequest>;

/** A route whose result is one armored block or one plaintext: `data` is that string. */
const StringData = (description: string) =>
  Type.Object({ data: Type.String({ description }) }, { additionalProperties: false });

export const V1EncryptResponse = StringData('The ASCII-armored encrypted message');
export type V1EncryptResponse = Static<typeof V1EncryptResponse>;

export const V1DecryptRequest = Type.Object(
  {
    message: Armored('The ASCII-armored encrypted message'),
    privateKey: Type.Optional(
      Armored("An armored private key of a recipient; absent: the server's own key (CRYPTO_KEY_DIR), if it has one"),
    ),
    passphrase: Type.Optional(
      Passphrase('Unlocks a locked privateKey; otherwise the passphrase of a symmetric message'),
    ),
  },
  { additionalProperties: false },
);
export type V1DecryptRequest = Static<typeof V1DecryptRequest>;

export const V1DecryptResponse = StringData('The decrypted text');
export type V1DecryptResponse = Static<typeof V1DecryptResponse>;

export const V1SignRequest = Type.Object(
  {
    message: Message('The text to sign (UTF-8)'),
    privateKey: Type.Optional(
      Armored("The signer's armored private key; absent: the server's own key (CRYPTO_KEY_DIR), if it has one"),
    ),
    passphrase: Type.Optional(Passphrase('Unlocks privateKey')),
    detached: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'true: an armored detached signature of the exact UTF-8 bytes; false (default): a cleartext-signed message',
      }),
    ),
  },
  { additionalProperties: false },
);
export type V1SignRequest = Static<typeof V1SignRequest>;

export const V1SignResponse = StringData(
  'The cleartext-signed message (-----BEGIN PGP SIGNED MESSAGE-----), or the detached signature (-----BEGIN PGP SIGNATURE-----)',
);
export type V1SignResponse = Static<typeof V1SignResponse>;

export const V1VerifyRequest = Type.Object(
  {
    message: Message(
      'A signed message (cleartext-signed or armored), or the signed text itself when signature is given',
    ),
    signature: Type.Optional(Armored('An armored detached signature of message')),
    publicKeys: PublicKeys('The public keys to verify against: one armored key or an array of them'),
  },
  { additionalProperties: false },
);
export type V1VerifyRequest = Static<typeof V1VerifyRequest>;

export const V1VerifyResponse = Type.Object(
  {
    data: Type.Object(
      {
        valid: Type.Boolean({
          description: 'At least one signature verifies with one of publicKeys, and none made by one of them fails',
        }),
        signatures: Type.Array(
          Type.Object(
            {
              keyId: Type.String({ description: 'Key ID of the signing key (16 lowercase hex digits)' }),
              valid: Type.Boolean({ description: 'This signature verifies with one of publicKeys' }),
            },
            { additionalProperties: false },
          ),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type V1VerifyResponse = Static<typeof V1VerifyResponse>;

export const V1RevokeRequest = Type.Object(
  {
    privateKey: Armored('The armored private key to revoke'),
    passphrase: Type.Optional(Passphrase('Unlocks privateKey')),
    reason: Type.Optional(
      Type.String({ maxLength: 1024, description: 'Human-readable reason, stored in the revocation signature' }),
    ),
  },
  { additionalProperties: false },
);
export type V1RevokeRequest = Static<typeof V1RevokeRequest>;

export const V1RevokeResponse = Type.Object(
  {
    data: Type.Object(
      {
        publicKey: Type.String({
          description: 'The revoked public key, armored: publish it so that others see the revocation',
        }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type V1RevokeResponse = Static<typeof V1RevokeResponse>;
