/**
 * @crypto-service/typeorm: encrypted columns for TypeORM 1.x through crypto-service. See the README
 * for the stored format, the associated data and the blind index.
 */
export { typeormFieldEncryption } from './encryption.ts';
export type { TypeormFieldEncryption, TypeormFieldEncryptionOptions } from './encryption.ts';
export { Encrypted, encryptedColumns } from './registry.ts';
export type { EncryptedFieldOptions } from './registry.ts';
export type { FieldEncryptionKeys, FieldLocation } from './field-cipher.ts';
export { associatedData, formatPrimaryKey, storedKeyId } from './field-cipher.ts';
export { FieldDecryptionError, FieldEncryptionError } from './errors.ts';
export type { RotationOptions, RotationResult } from './rotate.ts';
