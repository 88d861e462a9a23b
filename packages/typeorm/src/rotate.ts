/**
 * Key rotation: every row of an entity whose encrypted values are not under the current key is
 * read in primary-key order, a batch at a time, without the subscriber, and each such value
 * re-encrypted to the current key. A row is written only if its values are still the ones read,
 * so a concurrent update wins.
 */
import type { DataSource, EntityMetadata } from 'typeorm';
import { decryptField, encryptField, formatPrimaryKey, storedKeyId, type FieldEncryptionKeys } from './field-cipher.ts';
import { mapConcurrently } from './concurrency.ts';
import { encryptedFieldsOf } from './registry.ts';

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

export async function rotateEntity(
  keys: FieldEncryptionKeys,
  concurrency: number,
  dataSource: DataSource,
  metadata: EntityMetadata,
  options: RotationOptions = {},
): Promise<RotationResult> {
  const [keyColumn, ...rest] = metadata.primaryColumns;
  if (keyColumn === undefined || rest.length > 0)
    throw new TypeError(`rotation of ${metadata.name} needs a single-column primary key`);
  const fields = [...encryptedFieldsOf(metadata.target).keys()];
  const batchSize = options.batchSize ?? 1000;
  const progress: RotationResult = { scanned: 0, rotated: 0, skipped: 0 };
  const key = keyColumn.propertyName;
  const escape = (name: string) => dataSource.driver.escape(name);
  const keyColumnName = `row.${escape(keyColumn.databaseName)}`;
  let cursor: unknown;
  for (;;) {
    const query = dataSource
      .createQueryBuilder()
      .select(
        [keyColumn, ...fields.map((field) => metadata.findColumnWithPropertyName(field))].map(
          (column) => `row.${escape(column?.databaseName ?? '')} AS ${escape(column?.propertyName ?? '')}`,
        ),
      )
      .from(metadata.target, 'row')
      .orderBy(keyColumnName, 'ASC')
      .limit(batchSize);
    if (cursor !== undefined) query.where(`${keyColumnName} > :cursor`, { cursor });
    const rows: Record<string, unknown>[] = await query.getRawMany();
    await mapConcurrently(rows, concurrency, async (row) => {
      const primaryKey = formatPrimaryKey([row[key]]);
      const data: Record<string, string> = {};
      const expected: Record<string, string> = {};
      for (const field of fields) {
        const stored = row[field];
        if (typeof stored !== 'string' || storedKeyId(stored) === keys.currentKeyId) continue;
        const location = { model: metadata.name, field, primaryKey };
        data[field] = await encryptField(keys, location, await decryptField(keys, location, stored));
        expected[field] = stored;
      }
      if (Object.keys(data).length === 0) return;
      const result = await dataSource
        .createQueryBuilder()
        .update(metadata.target)
        .set(data)
        .where({ [key]: row[key], ...expected })
        .callListeners(false)
        .updateEntity(false)
        .execute();
      progress[result.affected === 1 ? 'rotated' : 'skipped'] += 1;
    });
    progress.scanned += rows.length;
    options.onProgress?.({ ...progress });
    if (rows.length < batchSize) return progress;
    cursor = rows.at(-1)?.[key];
  }
}
