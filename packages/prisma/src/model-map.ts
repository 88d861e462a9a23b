/**
 * What the extension knows of the schema: each model's relation fields (from the generated
 * client's runtime data model) and, for the models that have encrypted fields, their settings.
 */
export interface EncryptedFieldOptions {
  /** The column that holds the field's HMAC blind index, for equality lookups. */
  blindIndex?: string;
  /** Applied before the HMAC: Unicode NFC by default; e.g. trim and lower-case for e-mail. */
  normalize?: (value: string) => string;
}

export interface EncryptedModelOptions {
  /** The encrypted fields: `true`, or the field's settings. */
  fields: Readonly<Record<string, true | EncryptedFieldOptions>>;
  /** The primary key's field or fields; `id` by default. */
  primaryKey?: string | readonly string[];
  /** Fills the primary key of a create that lacks it (the key is bound to each value). */
  generateId?: () => string | number | bigint;
}

export interface RuntimeDataModel {
  models: Record<string, { fields: readonly { name: string; kind: string; type: string }[] }>;
}

export interface ModelInfo {
  name: string;
  primaryKey: readonly string[];
  fields: ReadonlyMap<string, EncryptedFieldOptions>;
  generateId: (() => string | number | bigint) | undefined;
  /** Relation field to the related model's name. */
  relations: ReadonlyMap<string, string>;
}

export type ModelMap = ReadonlyMap<string, ModelInfo>;

export function buildModelMap(
  dataModel: RuntimeDataModel,
  encrypted: Readonly<Record<string, EncryptedModelOptions>>,
): ModelMap {
  for (const name of Object.keys(encrypted)) {
    if (dataModel.models[name] === undefined) throw new TypeError(`model "${name}" is not in the Prisma schema`);
  }
  const map = new Map<string, ModelInfo>();
  for (const [name, model] of Object.entries(dataModel.models)) {
    const options = encrypted[name];
    const scalars = new Set(model.fields.filter((field) => field.kind === 'scalar').map((field) => field.name));
    const fields = new Map<string, EncryptedFieldOptions>();
    for (const [field, settings] of Object.entries(options?.fields ?? {})) {
      const fieldOptions = settings === true ? {} : settings;
      for (const column of [field, fieldOptions.blindIndex]) {
        if (column !== undefined && !scalars.has(column))
          throw new TypeError(`${name}.${column} is not a scalar field`);
      }
      fields.set(field, fieldOptions);
    }
    const primaryKey = options?.primaryKey ?? 'id';
    map.set(name, {
      name,
      primaryKey: typeof primaryKey === 'string' ? [primaryKey] : primaryKey,
      fields,
      generateId: options?.generateId,
      relations: new Map(
        model.fields.filter((field) => field.kind === 'object').map((field) => [field.name, field.type]),
      ),
    });
  }
  return map;
}
