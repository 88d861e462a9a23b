/**
 * Key rotation: every row of a model whose encrypted values are not under the current key is
 * read in primary-key order, a batch at a time, and each such value re-encrypted to the current
 * key. A row is written only if its values are still the ones read, so a concurrent update wins.
 */
import { decryptField, encryptField, formatPrimaryKey, storedKeyId } from './field-cipher.ts';
import { mapConcurrently } from './concurrency.ts';
import type { Context, Data } from './context.ts';
import type { ModelInfo } from './model-map.ts';

export interface RotationOptions {
  /** Rows read per query; 1000 by default. */
  batchSize?: number;
  /** Called after each batch with the counts so far. */
  onProgress?: (progress: RotationResult) => void;
}

export interface RotationResult {
  /** Rows read. */
  scanned: number;
  /** Rows re-encrypted to the current key. */
  rotated: number;
  /** Rows changed by someone else between the read and the write, left as they were. */
  skipped: number;
}

interface Delegate {
  findMany(args: Data): Promise<Data[]>;
  updateMany(args: Data): Promise<{ count: number }>;
}

export async function rotateModel(
  context: Context,
  client: Record<string, unknown>,
  model: ModelInfo,
  options: RotationOptions = {},
): Promise<RotationResult> {
  const [keyField, ...rest] = model.primaryKey;
  if (keyField === undefined || rest.length > 0)
    throw new TypeError(`rotation of ${model.name} needs a single-field primary key`);
  const delegate = client[model.name.charAt(0).toLowerCase() + model.name.slice(1)] as Delegate;
  const batchSize = options.batchSize ?? 1000;
  const fields = [...model.fields.keys()];
  const select = Object.fromEntries([keyField, ...fields].map((field) => [field, true]));
  const progress: RotationResult = { scanned: 0, rotated: 0, skipped: 0 };
  let cursor: unknown;
  for (;;) {
    const page = cursor === undefined ? {} : { cursor: { [keyField]: cursor }, skip: 1 };
    const rows = await delegate.findMany({ select, orderBy: { [keyField]: 'asc' }, take: batchSize, ...page });
    await mapConcurrently(rows, context.concurrency, async (row) => {
      const primaryKey = formatPrimaryKey([row[keyField]]);
      const data: Data = {};
      const expected: Data = {};
      for (const field of fields) {
        const stored = row[field];
        if (typeof stored !== 'string' || storedKeyId(stored) === context.keys.currentKeyId) continue;
        const location = { model: model.name, field, primaryKey };
        data[field] = await encryptField(context.keys, location, await decryptField(context.keys, location, stored));
        expected[field] = stored;
      }
      if (Object.keys(data).length === 0) return;
      const { count } = await delegate.updateMany({ where: { [keyField]: row[keyField], ...expected }, data });
      progress[count === 1 ? 'rotated' : 'skipped'] += 1;
    });
    progress.scanned += rows.length;
    options.onProgress?.({ ...progress });
    if (rows.length < batchSize) return progress;
    cursor = rows.at(-1)?.[keyField];
  }
}
