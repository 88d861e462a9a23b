/**
 * Which columns of which entities are encrypted: declared with the `@Encrypted()` property
 * decorator or, for EntitySchema definitions, with `encryptedColumns(target, fields)`.
 */
export interface EncryptedFieldOptions {
  /** The property that holds the field's HMAC blind index, for equality lookups. */
  blindIndex?: string;
  /** Applied before the HMAC: Unicode NFC by default; e.g. trim and lower-case for e-mail. */
  normalize?: (value: string) => string;
}

type Target = object | string;

const registry = new Map<Target, Map<string, EncryptedFieldOptions>>();

function fieldsOf(target: Target): Map<string, EncryptedFieldOptions> {
  let fields = registry.get(target);
  if (fields === undefined) {
    fields = new Map();
    registry.set(target, fields);
  }
  return fields;
}

/** Marks a property as encrypted (next to its `@Column`, which should be a text type). */
export function Encrypted(options: EncryptedFieldOptions = {}) {
  return (prototype: object, propertyKey: string | symbol): void => {
    if (typeof propertyKey !== 'string') throw new TypeError('an encrypted property needs a string name');
    fieldsOf(prototype.constructor).set(propertyKey, options);
  };
}

/** The same as `@Encrypted()` on each field, for entities without decorators. */
export function encryptedColumns(target: Target, fields: Readonly<Record<string, true | EncryptedFieldOptions>>): void {
  for (const [field, options] of Object.entries(fields)) fieldsOf(target).set(field, options === true ? {} : options);
}

/** The encrypted fields of an entity, its parent classes' included. */
export function encryptedFieldsOf(target: Target): ReadonlyMap<string, EncryptedFieldOptions> {
  if (typeof target === 'string') return registry.get(target) ?? new Map();
  const fields = new Map<string, EncryptedFieldOptions>();
  for (
    let current: object | null = target;
    current !== null && current !== Function.prototype;
    current = Object.getPrototypeOf(current)
  ) {
    for (const [field, options] of registry.get(current) ?? []) if (!fields.has(field)) fields.set(field, options);
  }
  return fields;
}
