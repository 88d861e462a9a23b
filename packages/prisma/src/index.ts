/**
 * @crypto-service/prisma: encrypted fields for Prisma 7 through crypto-service. See the README for
 * the stored format, the associated data and the blind index.
 */
export { fieldEncryption } from './extension.ts';
export type { PrismaFieldEncryptionOptions } from './extension.ts';
export type { EncryptedFieldOptions, EncryptedModelOptions } from './model-map.ts';
export type { FieldEncryptionKeys, FieldLocation } from './field-cipher.ts';
export { associatedData, formatPrimaryKey, storedKeyId } from './field-cipher.ts';
export { FieldDecryptionError, FieldEncryptionError } from './errors.ts';
export type { RotationOptions, RotationResult } from './rotate.ts';
