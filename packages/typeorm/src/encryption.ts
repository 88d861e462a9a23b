/**
 * The package's entry object: the subscriber class for the DataSource, blind-index lookups and
 * key rotation, all bound to one set of keys.
 */
import type { DataSource, EntitySubscriberInterface, EntityTarget, ObjectLiteral } from 'typeorm';
import { blindIndex, validateKeys, type FieldEncryptionKeys } from './field-cipher.ts';
import { FieldEncryptionError } from './errors.ts';
import { encryptedFieldsOf } from './registry.ts';
import { rotateEntity, type RotationOptions, type RotationResult } from './rotate.ts';
import { createEncryptionSubscriber } from './subscriber.ts';

export interface TypeormFieldEncryptionOptions extends FieldEncryptionKeys {
  /** Service calls in flight at once during a rotation; 16 by default. */
  concurrency?: number;
}

export interface TypeormFieldEncryption {
  /** Put it in the DataSource's `subscribers`. */
  Subscriber: new () => EntitySubscriberInterface;
  /**
   * A `where` whose encrypted fields are replaced by their blind index: `{ email: 'a@b.c' }`
   * becomes `{ emailIndex: '<hmac>' }`. Only equality can be looked up so.
   */
  where<T extends ObjectLiteral>(
    dataSource: DataSource,
    entity: EntityTarget<T>,
    where: Record<string, unknown>,
  ): Promise<Record<string, unknown>>;
  /** Re-encrypts every row of `entity` not under `currentKeyId`. */
  rotate<T extends ObjectLiteral>(
    dataSource: DataSource,
    entity: EntityTarget<T>,
    options?: RotationOptions,
  ): Promise<RotationResult>;
}

export function typeormFieldEncryption(options: TypeormFieldEncryptionOptions): TypeormFieldEncryption {
  validateKeys(options);
  return {
    Subscriber: createEncryptionSubscriber(options),
    async where(dataSource, entity, where) {
      const metadata = dataSource.getMetadata(entity);
      const fields = encryptedFieldsOf(metadata.target);
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(where)) {
        const field = fields.get(key);
        if (field === undefined) {
          out[key] = value;
          continue;
        }
        const location = { model: metadata.name, field: key };
        if (field.blindIndex === undefined)
          throw new FieldEncryptionError(location, undefined, 'it has no blind index to look up');
        if (typeof value !== 'string' && value !== null)
          throw new FieldEncryptionError(location, undefined, 'a lookup value must be a string');
        out[field.blindIndex] = value === null ? value : await blindIndex(options, location, value, field.normalize);
      }
      return out;
    },
    rotate(dataSource, entity, rotation) {
      return rotateEntity(options, options.concurrency ?? 16, dataSource, dataSource.getMetadata(entity), rotation);
    },
  };
}
