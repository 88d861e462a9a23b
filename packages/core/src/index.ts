/**
 * The public API of @crypto-service/core, listed name by name so that what the other packages may
 * use is a decision made here, not a side effect of a module exporting a helper.
 */
export {
  type CoreErrorCode, StacklessError, CryptoError, invalidInput, unsupportedAlgorithm,
  DECRYPTION_FAILED_MESSAGE, decryptionFailed, withoutStackTraces, tryOr, withFramesAbove,
  tryOrThrow, openOrFail,
} from './errors.ts';
export { checkLength, checkInteger } from './checks.ts';
export {
  type TextEncoding, TEXT_ENCODINGS, hexToBytes, bytesToHex, base64ToBytes, bytesToBase64,
  bytesToBase64Url, utf8ToBytes, bytesToUtf8, decodeText, encodeText,
} from './codec.ts';
export { constantTimeEqual, SECRET_SET_MINIMUM_BYTES, SecretSet, wipe } from './ct.ts';
export {
  MAX_XOF_LENGTH, oneShotDigest, HASH_ALGORITHMS, type HashAlgorithm, HASH_ALGORITHM_IDS,
  INSECURE_ALGORITHMS, isHashAlgorithm, isExtendable, digest,
} from './hash.ts';
export {
  XCHACHA_KEY_LENGTH, XCHACHA_NONCE_LENGTH, POLY1305_TAG_LENGTH, XCHACHA_OVERHEAD,
  NATIVE_AEAD_THRESHOLD, type AeadBackend, aeadBackendFor, nativeChaCha20Poly1305Open, xchachaSeal,
  xchachaOpen, AEAD_ALGORITHM_IDS,
} from './aead.ts';
export { hchacha20 } from './hchacha-hsalsa.ts';
export {
  X25519_SEALED_BOX, SEALED_BOX_ALGORITHM_IDS, type SealedBoxAlgorithm, SEALED_BOX_KEY_LENGTH,
  SEALED_BOX_OVERHEAD, sealedBoxX25519, sealBox, openBox,
} from './sealedbox.ts';
export {
  PQ_SEALED_BOX, PQ_SEALED_BOX_INFO, PQ_SEALED_BOX_OVERHEAD, type PqSealedBoxPublicKey,
  type PqSealedBoxSecretKey, sealBoxPq, pqSealedBoxPrivateKey, openBoxPq,
} from './sealedbox-pq.ts';
export {
  KEY_WRAP_ALGORITHMS, type KeyWrapAlgorithm, KEY_WRAP_ALGORITHM_IDS, DEFAULT_KEY_WRAP_ALGORITHM,
  KEK_LENGTHS, wrapKey, unwrapKey,
} from './keywrap.ts';
export {
  type KeyFormat, KEY_FORMATS, type Jwk, type EncodedKey, type RawKeyPair, type EncodedKeyPair,
  type KeyInput, type KeyPairScheme, decodeKeyField,
} from './key-format.ts';
export { type OkpCurve, okpPrivateKeyObject, okpPublicKeyObject, okpKeyPairScheme, okpFromPem } from './okp.ts';
export { X25519_KEY_LENGTH, x25519PublicKeyOf } from './x25519.ts';
export { ed448Noble, NATIVE_ED448_CONTEXT } from './eddsa.ts';
export { verifyEcdsaDer } from './ecdsa.ts';
export { type SignatureScheme } from './signature-scheme.ts';
export {
  SIGNATURE_SCHEMES, type ClassicalSignatureAlgorithm, CLASSICAL_SIGNATURE_ALGORITHM_IDS,
  type PostQuantumSignatureAlgorithm, POST_QUANTUM_SIGNATURE_ALGORITHM_IDS,
  type SignatureAlgorithm, SIGNATURE_ALGORITHM_IDS, DEFAULT_SIGNATURE_ALGORITHM,
  SIGNATURE_CONTEXT_MAX_BYTES, isSignatureAlgorithm, isPostQuantumSignatureAlgorithm,
  type SignatureOptions, signMessage, verifySignature,
} from './signature.ts';
export {
  type KeyGenerationAlgorithm, KEY_GENERATION_IDS, KEY_GENERATORS,
  DEFAULT_KEY_GENERATION_ALGORITHM, isKeyGenerationAlgorithm, isSymmetricKeyAlgorithm,
  type GeneratedKeyPair, type GeneratedSecretKey, type GeneratedKey, generateKeyMaterial,
} from './key-generation.ts';
export {
  KDF_ALGORITHMS, type KdfAlgorithm, type HkdfAlgorithm, KDF_ALGORITHM_IDS, isKdfAlgorithm,
  KDF_DEFAULT_KEY_LENGTH, KDF_MIN_KEY_LENGTH, SCRYPT_MAX_KEY_LENGTH, PBKDF2_MAX_KEY_LENGTH,
  KDF_MAX_KEY_LENGTH, KDF_GENERATED_SALT_LENGTH, KDF_MIN_SALT_LENGTH, KDF_MAX_SALT_LENGTH,
  HKDF_MAX_INFO_LENGTH, type ScryptParams, SCRYPT_DEFAULTS, SCRYPT_MIN_N, SCRYPT_MAX_N,
  SCRYPT_MIN_R, SCRYPT_MAX_R, SCRYPT_MIN_P, SCRYPT_MAX_P, SCRYPT_MAX_MEMORY_BYTES, SCRYPT_MAX_WORK,
  PBKDF2_DEFAULT_ITERATIONS, PBKDF2_MIN_ITERATIONS, PBKDF2_MAX_ITERATIONS, type KdfParamsInput,
  type KdfInput, type ScryptPlan, type Pbkdf2Plan, type HkdfPlan, type KdfPlan, scryptMemoryBytes,
  scryptBudgetBytes, planKdf, isExpensiveKdf, deriveKey, scryptRaw, pbkdf2Raw, type HkdfBackend,
  hkdfBackendFor, hkdfRaw,
} from './kdf.ts';
export {
  MAC_ALGORITHMS, type MacAlgorithm, MAC_ALGORITHM_IDS, isMacAlgorithm, NOBLE_HMAC_BELOW,
  type MacBackend, NOBLE_HASHES, macBackendFor, computeHmac, verifyHmac,
} from './mac.ts';
export {
  PASSWORD_ALGORITHM_IDS, type PasswordAlgorithm, PASSWORD_ENCRYPTION_ALGORITHM, type Argon2Params,
  ARGON2_DEFAULTS, ARGON2_MIN, ARGON2_MAX, ARGON2_SALT_LENGTH, ARGON2_TAG_LENGTH,
  PHC_MIN_SALT_LENGTH, PHC_MAX_SALT_LENGTH, PHC_MIN_TAG_LENGTH, PHC_MAX_TAG_LENGTH, PHC_MAX_LENGTH,
  type Argon2Variant, type Argon2Backend, ARGON2_BACKEND, availableArgon2Backends,
  type Argon2RawInput, argon2Raw, type Argon2ParamsInput, resolveArgon2Params, argon2MemoryBytes,
  encodePhc, type ParsedPhc, parsePhc, needsRehash, type HashPasswordOptions, hashPassword,
  verifyPassword, PASSWORD_ENVELOPE_VERSION, PASSWORD_HEADER_LENGTH, type PasswordEnvelopeHeader,
  parsePasswordEnvelope, type EncryptWithPasswordOptions, encryptWithPassword, decryptWithPassword,
} from './password.ts';
export {
  MULTI_RECIPIENT_ALGORITHM, MULTI_RECIPIENT_INFO, MIN_RECIPIENTS, MAX_RECIPIENTS,
  MULTI_RECIPIENT_PAYLOAD_KEY_LENGTH, SLOT_WRAPPED_KEY_LENGTH, MAX_SLOT_ENC_LENGTH,
  MAX_RECIPIENT_PUBLIC_KEY_LENGTH, HYBRID_ML_KEM_PUBLIC_KEY_LENGTH,
  HYBRID_ML_KEM_SECRET_KEY_MAX_LENGTH, RECIPIENT_TYPES, type RecipientType, RECIPIENT_TYPE_ALIASES,
  RECIPIENT_TYPE_NAMES, type RecipientPublicKey, type RecipientSlot, type EnvelopeSlot,
  type MultiRecipientEnvelope, type X25519RecipientSecret, type HybridRecipientSeed,
  type HybridRecipientParts, type RecipientSecret, canonicalRecipientType, multiRecipientEncrypt,
  multiRecipientDecrypt,
} from './multi-recipient.ts';
export { KEM_ALGORITHM_IDS, ALGORITHM_REGISTRY, type AlgorithmFamily } from './registry.ts';
export {
  ML_KEM_PARAMETERS, type MlKemAlgorithm, ML_KEM_ALGORITHM_IDS, type MlKemLevel, ML_KEM_LEVELS,
  ML_KEM_DEFAULT_LEVEL, ML_KEM_SEED_LENGTH, ML_KEM_SHARED_SECRET_LENGTH,
  ML_KEM_ENCAPSULATION_RANDOMNESS_LENGTH, type MlKemKeyPair, type MlKemEncapsulation,
  type MlKemDecapsulation, type MlKemOptions, mlKemAlgorithmForLevel, mlKemAlgorithmForPublicKey,
  mlKemAlgorithmForSecretKey, mlKemKeyPairFromSeed, mlKemKeygen, mlKemEncapsulate,
  mlKemDecapsulate,
} from './ml-kem.ts';
export {
  ML_DSA_PARAMETERS, type MlDsaAlgorithm, ML_DSA_ALGORITHM_IDS, type MlDsaLevel, ML_DSA_LEVELS,
  ML_DSA_DEFAULT_LEVEL, ML_DSA_SEED_LENGTH, ML_DSA_SIGNING_RANDOMNESS_LENGTH,
  ML_DSA_CONTEXT_MAX_BYTES, type MlDsaKeyPair, type MlDsaOptions, type MlDsaFields,
  type MlDsaSignOptions, type MlDsaVerifyOptions, mlDsaAlgorithmForLevel,
  mlDsaAlgorithmForSecretKey, mlDsaAlgorithmForPublicKey, mlDsaExpandedKeyIsConsistent,
  mlDsaKeygen, mlDsaSign, mlDsaVerify,
} from './ml-dsa.ts';
export {
  SLH_DSA_PARAMETERS, type SlhDsaAlgorithm, SLH_DSA_ALGORITHM_IDS, type SlhDsaVariant,
  SLH_DSA_VARIANTS, SLH_DSA_DEFAULT_VARIANT, SLH_DSA_CONTEXT_MAX_BYTES, type SlhDsaKeyPair,
  type SlhDsaOptions, type SlhDsaFields, type SlhDsaSignOptions, type SlhDsaVerifyOptions,
  slhDsaAlgorithmForVariant, slhDsaKeygen, slhDsaSign, slhDsaVerify,
} from './slh-dsa.ts';
export {
  XWING_ALGORITHM, XWING_ALGORITHM_IDS, type XWingAlgorithm, XWING_HPKE_KEM_ID, XWING_SEED_LENGTH,
  XWING_PUBLIC_KEY_LENGTH, XWING_CIPHERTEXT_LENGTH, XWING_SHARED_SECRET_LENGTH,
  XWING_ENCAPSULATION_SEED_LENGTH, type XWingKeyPair, type XWingEncapsulation,
  type XWingDecapsulation, type XWingOptions, type XWingFields, type XWingEncapsulateOptions,
  type XWingDecapsulationParts, xwingCombiner, xwingKeyPairFromSeed, xwingKeygen,
  xwingDeriveKeyPair, xwingEncapsulate, xwingEncapsulateParts, xwingDecapsulate,
  xwingDecapsulateParts, type XWingPrivateKeyParts, xwingHpkePrivateKeyFromParts, XWING_HPKE_KEM,
} from './xwing.ts';
export {
  type PostQuantumKeyAlgorithm, type PostQuantumKeyType, POST_QUANTUM_KEY_TYPES,
  POST_QUANTUM_KEY_ALGORITHM_IDS, isPostQuantumKeyAlgorithm, type PostQuantumRunner,
  postQuantumPublicKeyFromPem, postQuantumPrivateKeyFromPem, type XWingKeyParts,
  type PostQuantumKeyPair, generatePostQuantumKeyPair, checkPostQuantumKeyFormat,
  postQuantumPrivateKeyDer, postQuantumPublicKeyDer, exportPostQuantumKeyPair,
  DIRECT_POST_QUANTUM_RUNNER,
} from './pq-keys.ts';
export { type PqBackend, PQ_NATIVE_SUPPORT } from './pq-common.ts';
export { SELF_TEST_VECTORS, type SelfTestVectors } from './self-test-vectors.ts';
export {
  type SelfTest, SelfTestFailure, selfTestIds, createSelfTests, SELF_TESTS, type SelfTestOutcome,
  runSelfTest, runSelfTests,
} from './self-test.ts';
