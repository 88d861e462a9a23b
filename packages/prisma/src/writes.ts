/**
 * Encrypts the values of a write, at the top level and in nested writes: create, createMany,
 * connectOrCreate, upsert and update of related records. Each value is bound to its row's primary
 * key, so creates carry the key (or the model's `generateId` makes one) and updates name it in
 * `where`. `updateMany` cannot write an encrypted field (each row needs its own ciphertext).
 */
import { blindIndex, encryptField } from './field-cipher.ts';
import { FieldEncryptionError } from './errors.ts';
import { type Context, type Data, isRecord, modelOf, requirePrimaryKey } from './context.ts';
import type { ModelInfo } from './model-map.ts';
import { rewriteWhere } from './where.ts';

/** Encrypts the model's fields found in `data`, with the primary key `source` holds. */
async function encryptValues(
  context: Context,
  model: ModelInfo,
  data: Data,
  source: Data | undefined,
  where: string,
): Promise<void> {
  const tasks = [...model.fields].map(async ([field, options]) => {
    if (!(field in data)) return;
    const wrapped = isRecord(data[field]) && 'set' in data[field];
    const value = wrapped ? (data[field] as Data).set : data[field];
    const location = { model: model.name, field };
    if (value === null) {
      if (options.blindIndex !== undefined) data[options.blindIndex] = null;
      return;
    }
    if (typeof value !== 'string') throw new FieldEncryptionError(location, undefined, 'only strings can be encrypted');
    const primaryKey = requirePrimaryKey(model, field, source, where);
    const [stored, index] = await Promise.all([
      encryptField(context.keys, { ...location, primaryKey }, value),
      options.blindIndex === undefined ? undefined : blindIndex(context.keys, location, value, options.normalize),
    ]);
    data[field] = wrapped ? { set: stored } : stored;
    if (options.blindIndex !== undefined) data[options.blindIndex] = index;
  });
  await Promise.all(tasks);
}

export async function encryptCreate(context: Context, model: ModelInfo, input: unknown): Promise<unknown> {
  if (!isRecord(input)) return input;
  const data = { ...input };
  const [keyField] = model.primaryKey;
  if (
    model.generateId !== undefined &&
    model.primaryKey.length === 1 &&
    keyField !== undefined &&
    data[keyField] === undefined
  ) {
    data[keyField] = model.generateId();
  }
  await encryptValues(context, model, data, data, 'the create data');
  await encryptRelations(context, model, data);
  return data;
}

export async function encryptUpdate(
  context: Context,
  model: ModelInfo,
  input: unknown,
  where: unknown,
): Promise<unknown> {
  if (!isRecord(input)) return input;
  const data = { ...input };
  await encryptValues(context, model, data, isRecord(where) ? where : undefined, '`where`');
  await encryptRelations(context, model, data);
  return data;
}

export function refuseEncryptedUpdateMany(model: ModelInfo, data: unknown): void {
  if (!isRecord(data)) return;
  for (const field of model.fields.keys()) {
    if (field in data) {
      throw new FieldEncryptionError(
        { model: model.name, field },
        undefined,
        'updateMany cannot write it, since each row needs its own ciphertext: update the rows one by one',
      );
    }
  }
}

async function encryptRelations(context: Context, model: ModelInfo, data: Data): Promise<void> {
  for (const [field, relatedName] of model.relations) {
    if (isRecord(data[field])) data[field] = await nestedWrites(context, modelOf(context, relatedName), data[field]);
  }
}

const mapOneOrMany = async (value: unknown, task: (item: unknown) => Promise<unknown>): Promise<unknown> =>
  Array.isArray(value) ? Promise.all(value.map(task)) : task(value);

async function nestedWrites(context: Context, model: ModelInfo, operations: Data): Promise<Data> {
  const out: Data = { ...operations };
  const create = (item: unknown) => encryptCreate(context, model, item);
  const where = (item: unknown) => rewriteWhere(context, model, item);
  for (const [operation, value] of Object.entries(operations)) {
    switch (operation) {
      case 'create':
        out[operation] = await mapOneOrMany(value, create);
        break;
      case 'createMany':
        if (isRecord(value)) out[operation] = { ...value, data: await mapOneOrMany(value.data, create) };
        break;
      case 'connectOrCreate':
        out[operation] = await mapOneOrMany(value, async (item) =>
          isRecord(item) ? { ...item, where: await where(item.where), create: await create(item.create) } : item,
        );
        break;
      case 'upsert':
        out[operation] = await mapOneOrMany(value, async (item) =>
          isRecord(item)
            ? {
                ...item,
                ...(item.where === undefined ? {} : { where: await where(item.where) }),
                create: await create(item.create),
                update: await encryptUpdate(context, model, item.update, item.where),
              }
            : item,
        );
        break;
      case 'update':
        out[operation] = await mapOneOrMany(value, async (item) => {
          const isWrapped =
            isRecord(item) && 'data' in item && Object.keys(item).every((key) => key === 'data' || key === 'where');
          if (!isWrapped) return encryptUpdate(context, model, item, undefined);
          return {
            ...item,
            ...(item.where === undefined ? {} : { where: await where(item.where) }),
            data: await encryptUpdate(context, model, item.data, item.where),
          };
        });
        break;
      case 'updateMany':
        out[operation] = await mapOneOrMany(value, async (item) => {
          if (!isRecord(item)) return item;
          refuseEncryptedUpdateMany(model, item.data);
          return { ...item, where: await where(item.where) };
        });
        break;
      case 'connect':
      case 'disconnect':
      case 'delete':
      case 'deleteMany':
      case 'set':
        out[operation] = await mapOneOrMany(value, where);
        break;
    }
  }
  return out;
}
