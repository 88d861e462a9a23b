/**
 * The subscriber against a real PostgreSQL and the real service: raw rows hold ciphertext (opened
 * here with libsodium, not the service) and HMACs (checked with node:crypto); TypeORM loads
 * plaintext; a ciphertext moved to another row fails; blind-index lookups; transactions; a table
 * of 10,000 rows rotated to a new key.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import sodium from 'libsodium-wrappers';
import { DataSource, EntitySchema } from 'typeorm';
import { startCryptoService, type CryptoService } from '@crypto-service/testing';
import {
  encryptedColumns,
  FieldDecryptionError,
  FieldEncryptionError,
  typeormFieldEncryption,
  type TypeormFieldEncryption,
} from '../src/index.ts';
import { startPostgres, type Postgres } from '../../../scripts/test-support/postgres.ts';

class User {
  id!: string;
  email!: string | null;
  emailIndex!: string | null;
  name!: string | null;
}

const UserSchema = new EntitySchema<User>({
  name: 'User',
  tableName: 'users',
  target: User,
  columns: {
    id: { type: 'uuid', primary: true, generated: 'uuid' },
    email: { type: 'text', nullable: true },
    emailIndex: { type: 'text', nullable: true, unique: true },
    name: { type: 'text', nullable: true },
  },
});
encryptedColumns(User, {
  email: { blindIndex: 'emailIndex', normalize: (value) => value.trim().toLowerCase() },
  name: true,
});

interface Note {
  id: number;
  text: string | null;
}
const NoteSchema = new EntitySchema<Note>({
  name: 'Note',
  tableName: 'notes',
  columns: { id: { type: 'integer', primary: true }, text: { type: 'text', nullable: true } },
});
encryptedColumns('Note', { text: true });

const keys = {
  k1: randomBytes(32).toString('hex'),
  k2: randomBytes(32).toString('hex'),
  index: randomBytes(32).toString('hex'),
};
let service: CryptoService;
let postgres: Postgres;
let dataSource: DataSource;
let encryption: TypeormFieldEncryption;

function encryptionWith(currentKeyId: 'k1' | 'k2'): TypeormFieldEncryption {
  return typeormFieldEncryption({
    client: service.client,
    keys: { k1: keys.k1, k2: keys.k2 },
    currentKeyId,
    blindIndexKey: keys.index,
  });
}

function openLocally(stored: string, aad: string): string {
  const [version, keyId, payload] = stored.split('.');
  assert.equal(version, 'v1');
  const key = Buffer.from(keyId === 'k1' ? keys.k1 : keys.k2, 'hex');
  const bytes = Buffer.from(payload as string, 'base64');
  const plaintext = sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(
    null,
    bytes.subarray(24),
    aad,
    bytes.subarray(0, 24),
    key,
  );
  return Buffer.from(plaintext).toString('utf8');
}

function sealLocally(plaintext: string, aad: string): string {
  const nonce = randomBytes(24);
  const sealed = sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(
    plaintext,
    aad,
    null,
    nonce,
    Buffer.from(keys.k1, 'hex'),
  );
  return `v1.k1.${Buffer.concat([nonce, sealed]).toString('base64')}`;
}

const hmacHex = (value: string) => createHmac('sha256', Buffer.from(keys.index, 'hex')).update(value).digest('hex');

async function rawRow(table: string, id: string | number): Promise<Record<string, any>> {
  const rows = await dataSource.query(`SELECT * FROM ${table} WHERE id = $1`, [id]);
  assert.equal(rows.length, 1);
  return rows[0];
}

before(async () => {
  await sodium.ready;
  [service, postgres] = await Promise.all([
    startCryptoService({ env: { RATE_LIMIT_MAX: '10000000' } }),
    startPostgres(),
  ]);
  encryption = encryptionWith('k1');
  dataSource = new DataSource({
    type: 'postgres',
    url: postgres.url,
    entities: [UserSchema, NoteSchema],
    subscribers: [encryption.Subscriber],
    synchronize: true,
  });
  await dataSource.initialize();
});

after(async () => {
  await dataSource?.destroy();
  await Promise.all([service?.close(), postgres?.stop()]);
});

describe('save and load', () => {
  test('the row holds ciphertext bound to entity, column and key, and an HMAC index', async () => {
    const users = dataSource.getRepository(User);
    const user = await users.save(users.create({ email: ' Ada@Example.com', name: 'Ada Lovelace' }));
    assert.match(user.id, /^[0-9a-f-]{36}$/);
    assert.equal(user.email, ' Ada@Example.com', 'the saved entity keeps its plaintext');
    const row = await rawRow('users', user.id);
    assert.match(row.email, /^v1\.k1\.[A-Za-z0-9+/]+=*$/);
    assert.equal(openLocally(row.email, `User.email:${user.id}`), ' Ada@Example.com');
    assert.equal(openLocally(row.name, `User.name:${user.id}`), 'Ada Lovelace');
    assert.equal(row.emailIndex, hmacHex('ada@example.com'));
    assert.deepEqual(
      await users.findOneBy({ id: user.id }),
      Object.assign(new User(), {
        id: user.id,
        email: ' Ada@Example.com',
        emailIndex: hmacHex('ada@example.com'),
        name: 'Ada Lovelace',
      }),
    );
  });

  test('save() of a changed entity re-encrypts only what changed', async () => {
    const users = dataSource.getRepository(User);
    const user = await users.save(users.create({ email: 'change@example.com', name: 'Before' }));
    const before = await rawRow('users', user.id);
    const loaded = await users.findOneByOrFail({ id: user.id });
    loaded.name = 'After';
    await users.save(loaded);
    assert.equal(loaded.name, 'After');
    const row = await rawRow('users', user.id);
    assert.equal(row.email, before.email);
    assert.equal(openLocally(row.name, `User.name:${user.id}`), 'After');
    assert.equal((await users.findOneByOrFail({ id: user.id })).name, 'After');
  });

  test('insert() with a client-given key, and a value sealed elsewhere, read as plaintext', async () => {
    const notes = dataSource.getRepository<Note>('Note');
    await notes.insert({ id: -1, text: 'inserted' });
    assert.equal(openLocally((await rawRow('notes', -1)).text, 'Note.text:-1'), 'inserted');
    await dataSource.query('INSERT INTO notes (id, text) VALUES ($1, $2)', [
      -2,
      sealLocally('sealed by libsodium', 'Note.text:-2'),
    ]);
    assert.deepEqual(await notes.findOneBy({ id: -2 }), { id: -2, text: 'sealed by libsodium' });
  });

  test('writes that cannot bind a value to its row are refused', async () => {
    await assert.rejects(dataSource.getRepository<Note>('Note').save({ text: 'no key' } as Note), (error: unknown) => {
      assert.ok(error instanceof FieldEncryptionError);
      assert.equal(error.model, 'Note');
      assert.equal(error.field, 'text');
      assert.doesNotMatch(error.message, /no key/);
      return true;
    });
    await assert.rejects(
      dataSource.getRepository(User).update({ name: 'x' }, { name: 'y' }),
      /cannot bind the value to its row/,
    );
  });
});

describe('transactions', () => {
  test('a save inside a transaction encrypts, and a rollback leaves nothing', async () => {
    const saved = await dataSource.transaction(async (manager) => {
      const user = await manager.save(manager.create(User, { email: 'tx@example.com', name: 'In transaction' }));
      assert.equal((await manager.findOneByOrFail(User, { id: user.id })).name, 'In transaction');
      return user;
    });
    assert.equal(openLocally((await rawRow('users', saved.id)).name, `User.name:${saved.id}`), 'In transaction');
    let lost = '';
    await assert.rejects(
      dataSource.transaction(async (manager) => {
        lost = (await manager.save(manager.create(User, { email: 'lost@example.com' }))).id;
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.match(lost, /^[0-9a-f-]{36}$/);
    assert.equal((await dataSource.query('SELECT 1 FROM users WHERE id = $1', [lost])).length, 0);
  });
});

describe('tampering', () => {
  test('a ciphertext moved to another row does not open, and the error names entity, column and key only', async () => {
    const users = dataSource.getRepository(User);
    const a = await users.save(users.create({ email: 'secret-a@example.com' }));
    const b = await users.save(users.create({ email: 'secret-b@example.com' }));
    await dataSource.query('UPDATE users SET email = (SELECT email FROM users WHERE id = $1) WHERE id = $2', [
      a.id,
      b.id,
    ]);
    await assert.rejects(users.findOneBy({ id: b.id }), (error: unknown) => {
      assert.ok(error instanceof FieldDecryptionError);
      assert.deepEqual([error.model, error.field, error.keyId, error.primaryKey], ['User', 'email', 'k1', b.id]);
      assert.ok(!error.message.includes('secret-'));
      return true;
    });
    assert.equal((await users.findOneByOrFail({ id: a.id })).email, 'secret-a@example.com');
  });
});

describe('blind index', () => {
  test('where() looks a record up by the HMAC of its normalised value', async () => {
    const users = dataSource.getRepository(User);
    const grace = await users.save(users.create({ email: 'grace@example.com', name: 'Grace' }));
    const found = await users.findOneBy(await encryption.where(dataSource, User, { email: ' GRACE@example.com' }));
    assert.equal(found?.id, grace.id);
    assert.equal(found?.name, 'Grace');
    assert.equal(
      await users.findOneBy(await encryption.where(dataSource, User, { email: 'nobody@example.com' })),
      null,
    );
    await assert.rejects(encryption.where(dataSource, User, { name: 'Grace' }), /no blind index/);
  });
});

describe('key rotation', () => {
  const ROWS = 10_000;

  test(`moves a table of ${ROWS} rows to the new key`, async () => {
    const values = Array.from({ length: ROWS }, (_, index) => [
      index + 1,
      sealLocally(`note ${index + 1}`, `Note.text:${index + 1}`),
    ]);
    for (let start = 0; start < ROWS; start += 1000) {
      const chunk = values.slice(start, start + 1000);
      const placeholders = chunk.map((_, index) => `($${index * 2 + 1}, $${index * 2 + 2})`).join(', ');
      await dataSource.query(`INSERT INTO notes (id, text) VALUES ${placeholders}`, chunk.flat());
    }
    const [{ count: before }] = await dataSource.query(`SELECT count(*)::int AS count FROM notes`);
    const batches: number[] = [];
    const result = await encryptionWith('k2').rotate(dataSource, 'Note', {
      batchSize: 2500,
      onProgress: (progress) => batches.push(progress.scanned),
    });
    assert.deepEqual(result, { scanned: before, rotated: before, skipped: 0 });
    assert.deepEqual(batches, [2500, 5000, 7500, 10_000, before]);
    const rows = await dataSource.query('SELECT id, text FROM notes WHERE id > 0 ORDER BY id');
    assert.equal(rows.length, ROWS);
    for (const row of rows) assert.equal(openLocally(row.text, `Note.text:${row.id}`), `note ${row.id}`);
    assert.deepEqual(await encryptionWith('k2').rotate(dataSource, 'Note'), {
      scanned: before,
      rotated: 0,
      skipped: 0,
    });
  });
});
