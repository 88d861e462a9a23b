/**
 * The entity subscriber: encrypts the marked columns before an insert or update (and puts the
 * index in the blind-index column), restores the plaintext on the saved entity afterwards, and
 * decrypts on load. Each value is bound to its row's primary key, which must be known before the
 * insert: set it, or use a `uuid` generated key, which the subscriber fills in as the database would.
 */
import { randomUUID } from 'node:crypto';
import {
  EventSubscriber,
  type EntityMetadata,
  type EntitySubscriberInterface,
  type InsertEvent,
  type LoadEvent,
  type UpdateEvent,
} from 'typeorm';
import { blindIndex, decryptField, encryptField, formatPrimaryKey, type FieldEncryptionKeys } from './field-cipher.ts';
import { FieldEncryptionError } from './errors.ts';
import { encryptedFieldsOf } from './registry.ts';

type Entity = Record<string, unknown>;

export function primaryKeyOf(metadata: EntityMetadata, entity: Entity): string | undefined {
  const values = metadata.primaryColumns.map((column) => column.getEntityValue(entity));
  if (values.length === 0 || values.some((value) => !['string', 'number', 'bigint'].includes(typeof value)))
    return undefined;
  return formatPrimaryKey(values);
}

function requirePrimaryKey(metadata: EntityMetadata, entity: Entity, field: string): string {
  const primaryKey = primaryKeyOf(metadata, entity);
  if (primaryKey !== undefined) return primaryKey;
  throw new FieldEncryptionError(
    { model: metadata.name, field },
    undefined,
    `the primary key (${metadata.primaryColumns.map((column) => column.propertyName).join(', ')}) must be set before the write, since the value is bound to it; use save() on an entity with its key`,
  );
}

/** Plaintexts of the entities being written, put back once the row is saved. */
const pending = new WeakMap<object, Entity>();

async function encryptEntity(
  keys: FieldEncryptionKeys,
  metadata: EntityMetadata,
  entity: Entity,
  unchanged: (field: string) => boolean,
): Promise<void> {
  const fields = encryptedFieldsOf(metadata.target);
  const plaintexts: Entity = {};
  await Promise.all(
    [...fields].map(async ([field, options]) => {
      const value = entity[field];
      if (value === undefined || unchanged(field)) return;
      const location = { model: metadata.name, field };
      if (value === null) {
        if (options.blindIndex !== undefined) entity[options.blindIndex] = null;
        return;
      }
      if (typeof value !== 'string')
        throw new FieldEncryptionError(location, undefined, 'only strings can be encrypted');
      const primaryKey = requirePrimaryKey(metadata, entity, field);
      const [stored, index] = await Promise.all([
        encryptField(keys, { ...location, primaryKey }, value),
        options.blindIndex === undefined ? undefined : blindIndex(keys, location, value, options.normalize),
      ]);
      plaintexts[field] = value;
      entity[field] = stored;
      if (options.blindIndex !== undefined) entity[options.blindIndex] = index;
    }),
  );
  if (Object.keys(plaintexts).length > 0) pending.set(entity, plaintexts);
}

export async function decryptEntity(
  keys: FieldEncryptionKeys,
  metadata: EntityMetadata,
  entity: Entity,
): Promise<void> {
  const fields = [...encryptedFieldsOf(metadata.target).keys()].filter((field) => typeof entity[field] === 'string');
  if (fields.length === 0) return;
  const primaryKey = primaryKeyOf(metadata, entity) ?? '?';
  await Promise.all(
    fields.map(async (field) => {
      entity[field] = await decryptField(keys, { model: metadata.name, field, primaryKey }, entity[field] as string);
    }),
  );
}

function restorePlaintext(entity: unknown): void {
  if (typeof entity !== 'object' || entity === null) return;
  const plaintexts = pending.get(entity);
  if (plaintexts === undefined) return;
  Object.assign(entity, plaintexts);
  pending.delete(entity);
}

function fillGeneratedUuid(metadata: EntityMetadata, entity: Entity): void {
  for (const column of metadata.primaryColumns) {
    if (column.generationStrategy === 'uuid' && column.getEntityValue(entity) == null) {
      column.setEntityValue(entity, randomUUID());
    }
  }
}

/** A subscriber class for the DataSource's `subscribers`, bound to these keys. */
export function createEncryptionSubscriber(keys: FieldEncryptionKeys): new () => EntitySubscriberInterface {
  class FieldEncryptionSubscriber implements EntitySubscriberInterface {
    async beforeInsert(event: InsertEvent<Entity>): Promise<void> {
      if (encryptedFieldsOf(event.metadata.target).size === 0) return;
      fillGeneratedUuid(event.metadata, event.entity);
      await encryptEntity(keys, event.metadata, event.entity, () => false);
    }

    afterInsert(event: InsertEvent<Entity>): void {
      restorePlaintext(event.entity);
    }

    async beforeUpdate(event: UpdateEvent<Entity>): Promise<void> {
      const entity = event.entity;
      const fields = encryptedFieldsOf(event.metadata.target);
      if (entity === undefined || fields.size === 0) return;
      const before = event.databaseEntity as Entity | undefined;
      if (before === undefined) {
        // An update through the query builder or repository.update(): no entity, so no primary key.
        const field = [...fields.keys()].find((name) => entity[name] !== undefined && entity[name] !== null);
        if (field !== undefined) {
          throw new FieldEncryptionError(
            { model: event.metadata.name, field },
            undefined,
            'an update without the entity cannot bind the value to its row: load the entity, change it and save() it',
          );
        }
        return;
      }
      // The loaded entity holds plaintext: an unchanged value keeps its stored ciphertext.
      await encryptEntity(keys, event.metadata, entity, (field) => entity[field] === before[field]);
    }

    afterUpdate(event: UpdateEvent<Entity>): void {
      restorePlaintext(event.entity);
    }

    async afterLoad(entity: Entity, event?: LoadEvent<Entity>): Promise<void> {
      if (event !== undefined) await decryptEntity(keys, event.metadata, entity);
    }
  }
  // TypeORM instantiates only the subscriber classes registered by this decorator.
  EventSubscriber()(FieldEncryptionSubscriber);
  return FieldEncryptionSubscriber;
}
