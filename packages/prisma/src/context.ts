import type { FieldEncryptionKeys } from './field-cipher.ts';
import { formatPrimaryKey } from './field-cipher.ts';
import { FieldEncryptionError } from './errors.ts';
import type { ModelInfo, ModelMap } from './model-map.ts';

export type Data = Record<string, unknown>;

export interface Context {
  keys: FieldEncryptionKeys;
  models: ModelMap;
  concurrency: number;
}

export function isRecord(value: unknown): value is Data {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

export function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [value];
}

export function modelOf(context: Context, name: string): ModelInfo {
  const model = context.models.get(name);
  if (model === undefined) throw new TypeError(`model "${name}" is not in the Prisma schema`);
  return model;
}

/**
 * The primary key of a row from create data, a unique `where` or a result: its fields directly, or
 * Prisma's compound form `{ a_b: { a, b } }`. Undefined when a part is missing.
 */
export function primaryKeyIn(model: ModelInfo, source: Data | undefined): string | undefined {
  if (source === undefined) return undefined;
  const compound = source[model.primaryKey.join('_')];
  const holder = model.primaryKey.length > 1 && isRecord(compound) ? compound : source;
  const values = model.primaryKey.map((field) => holder[field]);
  if (values.some((value) => !['string', 'number', 'bigint'].includes(typeof value))) return undefined;
  return formatPrimaryKey(values);
}

export function requirePrimaryKey(model: ModelInfo, field: string, source: Data | undefined, where: string): string {
  const primaryKey = primaryKeyIn(model, source);
  if (primaryKey !== undefined) return primaryKey;
  throw new FieldEncryptionError(
    { model: model.name, field },
    undefined,
    `the primary key (${model.primaryKey.join(', ')}) must be in ${where}, since the value is bound to it`,
  );
}
