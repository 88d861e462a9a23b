/**
 * Filters on an encrypted field become filters on its blind index: `{ email: 'a@b.c' }` is
 * `{ emailIndex: hmac('a@b.c') }`. Only equality can be answered so (`equals`, `in`, `notIn`,
 * `not`, null); anything else on an encrypted field is refused rather than silently matching nothing.
 */
import { blindIndex } from './field-cipher.ts';
import { FieldEncryptionError } from './errors.ts';
import { type Context, type Data, isRecord, modelOf } from './context.ts';
import type { ModelInfo } from './model-map.ts';

const LOGICAL = new Set(['AND', 'OR', 'NOT']);
const RELATION_FILTERS = new Set(['some', 'every', 'none', 'is', 'isNot']);
const EQUALITY = new Set(['equals', 'in', 'notIn', 'not']);

export async function rewriteWhere(context: Context, model: ModelInfo, where: unknown): Promise<unknown> {
  if (!isRecord(where)) return where;
  const out: Data = {};
  for (const [key, value] of Object.entries(where)) {
    if (LOGICAL.has(key)) {
      out[key] = Array.isArray(value)
        ? await Promise.all(value.map((item) => rewriteWhere(context, model, item)))
        : await rewriteWhere(context, model, value);
    } else if (model.fields.has(key)) {
      Object.assign(out, await indexFilter(context, model, key, value));
    } else if (model.relations.has(key) && isRecord(value)) {
      out[key] = await rewriteRelationFilter(context, modelOf(context, model.relations.get(key) as string), value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

async function rewriteRelationFilter(context: Context, related: ModelInfo, filter: Data): Promise<Data> {
  const isFilterObject = Object.keys(filter).some((key) => RELATION_FILTERS.has(key));
  if (!isFilterObject) return (await rewriteWhere(context, related, filter)) as Data;
  const out: Data = {};
  for (const [key, value] of Object.entries(filter)) {
    out[key] = RELATION_FILTERS.has(key) ? await rewriteWhere(context, related, value) : value;
  }
  return out;
}

async function indexFilter(context: Context, model: ModelInfo, field: string, filter: unknown): Promise<Data> {
  const options = model.fields.get(field) ?? {};
  const location = { model: model.name, field };
  const refuse = (reason: string): never => {
    throw new FieldEncryptionError(location, undefined, reason);
  };
  if (options.blindIndex === undefined) return refuse('it has no blind index to filter on');
  const hash = async (value: unknown): Promise<string | null> => {
    if (value === null) return null;
    if (typeof value !== 'string') return refuse('a filter value must be a string');
    return blindIndex(context.keys, location, value, options.normalize);
  };
  if (!isRecord(filter)) return { [options.blindIndex]: await hash(filter) };
  const out: Data = {};
  for (const [operator, value] of Object.entries(filter)) {
    if (!EQUALITY.has(operator)) refuse(`only equality filters (${[...EQUALITY].join(', ')}) work on its blind index`);
    if (operator === 'in' || operator === 'notIn') {
      out[operator] = await Promise.all((Array.isArray(value) ? value : [value]).map(hash));
    } else if (operator === 'not' && isRecord(value)) {
      out[operator] = (await indexFilter(context, model, field, value))[options.blindIndex];
    } else {
      out[operator] = await hash(value);
    }
  }
  return { [options.blindIndex]: out };
}
