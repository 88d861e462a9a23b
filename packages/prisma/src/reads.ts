/**
 * Decrypts the records a query returns, nested relations included. A value opens only with its
 * row's primary key, so a `select` (or `omit`) that leaves the key out while reading an encrypted
 * field gets the key added, and removed again from the result.
 */
import { decryptField } from './field-cipher.ts';
import { FieldEncryptionError } from './errors.ts';
import { mapConcurrently } from './concurrency.ts';
import { type Context, type Data, isRecord, modelOf, primaryKeyIn } from './context.ts';
import type { ModelInfo } from './model-map.ts';
import { rewriteWhere } from './where.ts';

export interface Selection {
  /** Primary key fields added to the query, to drop from its records. */
  added: readonly string[];
  relations: ReadonlyMap<string, Selection>;
}

const NOTHING_ADDED: Selection = { added: [], relations: new Map() };

/** Adds the primary key where encrypted fields are read, and rewrites nested `where` filters. */
export async function prepareSelection(
  context: Context,
  model: ModelInfo,
  args: Data,
): Promise<{ args: Data; selection: Selection }> {
  const out: Data = { ...args };
  const added: string[] = [];
  const relations = new Map<string, Selection>();
  if (isRecord(args.select)) {
    const select: Data = { ...args.select };
    const readsEncrypted = [...model.fields.keys()].some((field) => select[field] === true);
    for (const key of model.primaryKey) {
      if (readsEncrypted && select[key] !== true) {
        select[key] = true;
        added.push(key);
      }
    }
    out.select = await prepareRelations(context, model, select, relations);
  }
  if (isRecord(args.omit)) {
    const omit: Data = { ...args.omit };
    const readsEncrypted = [...model.fields.keys()].some((field) => omit[field] !== true);
    for (const key of model.primaryKey) {
      if (readsEncrypted && omit[key] === true) {
        delete omit[key];
        added.push(key);
      }
    }
    out.omit = omit;
  }
  if (isRecord(args.include)) out.include = await prepareRelations(context, model, args.include, relations);
  if (args.where !== undefined) out.where = await rewriteWhere(context, model, args.where);
  refuseOrderByEncrypted(model, args.orderBy);
  return { args: out, selection: added.length === 0 && relations.size === 0 ? NOTHING_ADDED : { added, relations } };
}

/** Rows ordered by ciphertext would come back in a random order: refused rather than wrong. */
function refuseOrderByEncrypted(model: ModelInfo, orderBy: unknown): void {
  for (const order of Array.isArray(orderBy) ? orderBy : [orderBy]) {
    if (!isRecord(order)) continue;
    const field = Object.keys(order).find((key) => model.fields.has(key));
    if (field !== undefined) {
      throw new FieldEncryptionError(
        { model: model.name, field },
        undefined,
        'rows cannot be ordered by an encrypted value',
      );
    }
  }
}

async function prepareRelations(
  context: Context,
  model: ModelInfo,
  fields: Data,
  relations: Map<string, Selection>,
): Promise<Data> {
  const out: Data = { ...fields };
  for (const [field, relatedName] of model.relations) {
    const nested = fields[field];
    if (!isRecord(nested)) continue;
    const prepared = await prepareSelection(context, modelOf(context, relatedName), nested);
    out[field] = prepared.args;
    relations.set(field, prepared.selection);
  }
  return out;
}

export async function decryptResult(
  context: Context,
  model: ModelInfo,
  result: unknown,
  selection: Selection,
): Promise<unknown> {
  if (Array.isArray(result)) {
    return mapConcurrently(result, context.concurrency, (record) => decryptRecord(context, model, record, selection));
  }
  return decryptRecord(context, model, result, selection);
}

async function decryptRecord(
  context: Context,
  model: ModelInfo,
  record: unknown,
  selection: Selection,
): Promise<unknown> {
  if (!isRecord(record)) return record;
  const out: Data = { ...record };
  const primaryKey = primaryKeyIn(model, record);
  const fields = [...model.fields.keys()].filter((field) => typeof record[field] === 'string');
  await Promise.all(
    fields.map(async (field) => {
      const location = { model: model.name, field, primaryKey: primaryKey ?? '?' };
      out[field] = await decryptField(context.keys, location, record[field] as string);
    }),
  );
  for (const [field, relatedName] of model.relations) {
    if (record[field] === undefined || record[field] === null) continue;
    out[field] = await decryptResult(
      context,
      modelOf(context, relatedName),
      record[field],
      selection.relations.get(field) ?? NOTHING_ADDED,
    );
  }
  for (const key of selection.added) delete out[key];
  return out;
}
