/**
 * Errors of encrypted fields. Each names the model, the field and the key id, and the primary key
 * of the row (not secret by itself); never the value, the plaintext or a key.
 */
interface ErrorLocation {
  model: string;
  field: string;
  primaryKey?: string;
}

function describe(location: ErrorLocation, keyId: string | undefined): string {
  const row = location.primaryKey === undefined ? '' : ` (primary key ${location.primaryKey})`;
  const key = keyId === undefined ? '' : `, key "${keyId}"`;
  return `${location.model}.${location.field}${row}${key}`;
}

export class FieldEncryptionError extends Error {
  override readonly name: string = 'FieldEncryptionError';
  readonly model: string;
  readonly field: string;
  readonly keyId: string | undefined;

  constructor(location: ErrorLocation, keyId: string | undefined, reason: string, cause?: unknown) {
    super(`cannot encrypt ${describe(location, keyId)}: ${reason}`, cause === undefined ? undefined : { cause });
    this.model = location.model;
    this.field = location.field;
    this.keyId = keyId;
  }
}

export class FieldDecryptionError extends Error {
  override readonly name = 'FieldDecryptionError';
  readonly model: string;
  readonly field: string;
  readonly keyId: string | undefined;
  readonly primaryKey: string | undefined;

  constructor(location: ErrorLocation, keyId: string | undefined, reason: string, cause?: unknown) {
    super(`cannot decrypt ${describe(location, keyId)}: ${reason}`, cause === undefined ? undefined : { cause });
    this.model = location.model;
    this.field = location.field;
    this.keyId = keyId;
    this.primaryKey = location.primaryKey;
  }
}
