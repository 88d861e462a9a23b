/**
 * The Prisma Client extension: `query` hooks on every model encrypt the declared fields on the way
 * in and decrypt them on the way out, and `$rotateEncryptionKey` moves a model to the current key.
 */
import { Prisma } from '@prisma/client/extension';
import type { FieldEncryptionKeys } from './field-cipher.ts';
import { validateKeys } from './field-cipher.ts';
import { mapConcurrently } from './concurrency.ts';
import { type Context, type Data, asList, modelOf } from './context.ts';
import { buildModelMap, type EncryptedModelOptions, type RuntimeDataModel } from './model-map.ts';
import { decryptResult, prepareSelection } from './reads.ts';
import { rotateModel, type RotationOptions, type RotationResult } from './rotate.ts';
import { rewriteWhere } from './where.ts';
import { encryptCreate, encryptUpdate, refuseEncryptedUpdateMany } from './writes.ts';

export interface PrismaFieldEncryptionOptions extends FieldEncryptionKeys {
  /** The models with encrypted fields, by their name in the schema. */
  models: Readonly<Record<string, EncryptedModelOptions>>;
  /** Service calls in flight at once for a query over many records; 16 by default. */
  concurrency?: number;
}

/** The operations whose result is a record or a list of records. */
const RETURNS_RECORDS = new Set([
  'findUnique',
  'findUniqueOrThrow',
  'findFirst',
  'findFirstOrThrow',
  'findMany',
  'create',
  'createManyAndReturn',
  'update',
  'updateManyAndReturn',
  'upsert',
  'delete',
]);

async function prepareWrite(context: Context, modelName: string, operation: string, args: Data): Promise<Data> {
  const model = modelOf(context, modelName);
  const out: Data = { ...args };
  switch (operation) {
    case 'create':
      out.data = await encryptCreate(context, model, args.data);
      break;
    case 'createMany':
    case 'createManyAndReturn':
      out.data = await mapConcurrently(asList(args.data), context.concurrency, (row) =>
        encryptCreate(context, model, row),
      );
      break;
    case 'update':
      out.data = await encryptUpdate(context, model, args.data, args.where);
      break;
    case 'upsert':
      out.create = await encryptCreate(context, model, args.create);
      out.update = await encryptUpdate(context, model, args.update, args.where);
      break;
    case 'updateMany':
    case 'updateManyAndReturn':
      refuseEncryptedUpdateMany(model, args.data);
      break;
  }
  if (args.where !== undefined) out.where = await rewriteWhere(context, model, args.where);
  return out;
}

export function fieldEncryption(options: PrismaFieldEncryptionOptions) {
  validateKeys(options);
  return Prisma.defineExtension((client) => {
    const dataModel = (client as unknown as { _runtimeDataModel?: RuntimeDataModel })._runtimeDataModel;
    if (dataModel === undefined)
      throw new Error('@crypto-service/prisma needs a Prisma Client 7 generated from a schema');
    const context: Context = {
      keys: options,
      models: buildModelMap(dataModel, options.models),
      concurrency: options.concurrency ?? 16,
    };
    return client.$extends({
      name: '@crypto-service/prisma',
      query: {
        $allModels: {
          async $allOperations({ model, operation, args, query }) {
            const written = await prepareWrite(context, model, operation, (args ?? {}) as Data);
            if (!RETURNS_RECORDS.has(operation)) return query(written as typeof args);
            const { args: prepared, selection } = await prepareSelection(context, modelOf(context, model), written);
            return decryptResult(context, modelOf(context, model), await query(prepared as typeof args), selection);
          },
        },
      },
      client: {
        /** Re-encrypts every row of `model` that is not under `currentKeyId`. */
        $rotateEncryptionKey(model: string, rotation?: RotationOptions): Promise<RotationResult> {
          return rotateModel(context, client as unknown as Record<string, unknown>, modelOf(context, model), rotation);
        },
      },
    });
  });
}
