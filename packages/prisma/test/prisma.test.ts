/**
 * The extension against a real PostgreSQL and the real service: raw rows hold ciphertext (opened
 * here with libsodium, not the service) and HMACs (checked with node:crypto); Prisma reads
 * plaintext; a ciphertext moved to another row fails; blind-index lookups; nested writes,
 * createMany, upsert, update and transactions; a table of 10,000 rows rotated to a new key.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import sodium from 'libsodium-wrappers';
import {
  fieldEncryption,
  FieldDecryptionError,
  FieldEncryptionError,
  type PrismaFieldEncryptionOptions,
} from '../src/index.ts';
import { startStack, type Stack } from './stack.ts';

let stack: Stack;
let base: any;
let prisma: any;

const normalizeEmail = (value: string) => value.trim().toLowerCase();

function options(currentKeyId: 'k1' | 'k2'): PrismaFieldEncryptionOptions {
  return {
    client: stack.service.client,
    keys: { k1: stack.keys.k1, k2: stack.keys.k2 },
    currentKeyId,
    blindIndexKey: stack.keys.index,
    models: {
      User: { fields: { email: { blindIndex: 'emailIndex', normalize: normalizeEmail }, name: true } },
      Post: { fields: { body: true }, generateId: () => randomUUID() },
      Note: { fields: { text: true } },
    },
  };
}

/** Opens a stored value without the service: v1.<key id>.<base64 of nonce ‖ ciphertext ‖ tag>. */
function openLocally(stored: string, aad: string): string {
  const [version, keyId, payload] = stored.split('.');
  assert.equal(version, 'v1');
  const key = Buffer.from(keyId === 'k1' ? stack.keys.k1 : stack.keys.k2, 'hex');
  const bytes = Buffer.from(payload as string, 'base64');
  const nonce = bytes.subarray(0, 24);
  const plaintext = sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(null, bytes.subarray(24), aad, nonce, key);
  return Buffer.from(plaintext).toString('utf8');
}

/** Seals a value without the service, as the extension stores it. */
function sealLocally(plaintext: string, aad: string, keyId: 'k1' | 'k2'): string {
  const key = Buffer.from(keyId === 'k1' ? stack.keys.k1 : stack.keys.k2, 'hex');
  const nonce = randomBytes(24);
  const sealed = sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(plaintext, aad, null, nonce, key);
  return `v1.${keyId}.${Buffer.concat([nonce, sealed]).toString('base64')}`;
}

const hmacHex = (value: string) =>
  createHmac('sha256', Buffer.from(stack.keys.index, 'hex')).update(value).digest('hex');

async function rawRow(table: string, id: string | number): Promise<Record<string, any>> {
  const { rows } = await stack.sql.query(`SELECT * FROM "${table}" WHERE id = $1`, [id]);
  assert.equal(rows.length, 1);
  return rows[0];
}

before(async () => {
  await sodium.ready;
  stack = await startStack();
  base = new stack.PrismaClient({ adapter: stack.adapter() });
  prisma = base.$extends(fieldEncryption(options('k1')));
});

after(async () => {
  await base?.$disconnect();
  await stack?.close();
});

describe('create and read', () => {
  test('the row holds ciphertext bound to model, field and key, and an HMAC index', async () => {
    const id = randomUUID();
    const created = await prisma.user.create({ data: { id, email: ' Ada@Example.com', name: 'Ada Lovelace' } });
    assert.deepEqual(created, {
      id,
      email: ' Ada@Example.com',
      emailIndex: hmacHex('ada@example.com'),
      name: 'Ada Lovelace',
    });
    const row = await rawRow('User', id);
    assert.match(row.email, /^v1\.k1\.[A-Za-z0-9+/]+=*$/);
    assert.doesNotMatch(row.email, /Ada/);
    assert.equal(openLocally(row.email, `User.email:${id}`), ' Ada@Example.com');
    assert.equal(openLocally(row.name, `User.name:${id}`), 'Ada Lovelace');
    assert.equal(row.emailIndex, hmacHex('ada@example.com'));
    assert.deepEqual(await prisma.user.findUnique({ where: { id } }), created);
  });

  test('a value sealed elsewhere with the same format reads as plaintext', async () => {
    await stack.sql.query('INSERT INTO "Note" (id, text) VALUES ($1, $2)', [
      -1,
      sealLocally('sealed by libsodium', 'Note.text:-1', 'k1'),
    ]);
    assert.deepEqual(await prisma.note.findUnique({ where: { id: -1 } }), { id: -1, text: 'sealed by libsodium' });
  });

  test('a select without the primary key still decrypts, and returns only what it asked for', async () => {
    const id = randomUUID();
    await prisma.user.create({ data: { id, email: 'sel@example.com', name: 'Sel' } });
    assert.deepEqual(await prisma.user.findUnique({ where: { id }, select: { name: true } }), { name: 'Sel' });
    assert.deepEqual(await prisma.user.findUnique({ where: { id }, omit: { id: true, emailIndex: true } }), {
      email: 'sel@example.com',
      name: 'Sel',
    });
  });

  test('null stays null, in the field and its index', async () => {
    const id = randomUUID();
    await prisma.user.create({ data: { id, email: null, name: null } });
    assert.deepEqual(await rawRow('User', id), { id, email: null, emailIndex: null, name: null });
    assert.deepEqual(await prisma.user.findUnique({ where: { id } }), {
      id,
      email: null,
      emailIndex: null,
      name: null,
    });
  });

  test('a create without the primary key is refused, naming model and field', async () => {
    await assert.rejects(prisma.user.create({ data: { email: 'x@example.com' } }), (error: unknown) => {
      assert.ok(error instanceof FieldEncryptionError);
      assert.equal(error.model, 'User');
      assert.equal(error.field, 'email');
      assert.doesNotMatch(error.message, /x@example/);
      return true;
    });
  });
});

describe('tampering', () => {
  test('a ciphertext moved to another row does not open, and the error names model, field and key only', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    await prisma.user.create({ data: { id: a, email: 'secret-a@example.com' } });
    await prisma.user.create({ data: { id: b, email: 'secret-b@example.com' } });
    await stack.sql.query('UPDATE "User" SET email = (SELECT email FROM "User" WHERE id = $1) WHERE id = $2', [a, b]);
    const stolen = (await rawRow('User', b)).email as string;
    await assert.rejects(prisma.user.findUnique({ where: { id: b } }), (error: unknown) => {
      assert.ok(error instanceof FieldDecryptionError);
      assert.equal(error.model, 'User');
      assert.equal(error.field, 'email');
      assert.equal(error.keyId, 'k1');
      assert.equal(error.primaryKey, b);
      assert.ok(!error.message.includes('secret-'));
      assert.ok(!error.message.includes(stolen.slice(6, 30)));
      return true;
    });
    assert.equal((await prisma.user.findUnique({ where: { id: a } })).email, 'secret-a@example.com');
  });

  test('a ciphertext moved to another column does not open', async () => {
    const id = randomUUID();
    await prisma.user.create({ data: { id, email: 'col@example.com', name: 'Col' } });
    await stack.sql.query('UPDATE "User" SET name = email WHERE id = $1', [id]);
    await assert.rejects(prisma.user.findUnique({ where: { id } }), { name: 'FieldDecryptionError', field: 'name' });
  });
});

describe('blind index', () => {
  test('equality filters on an encrypted field use the index', async () => {
    const id = randomUUID();
    await prisma.user.create({ data: { id, email: 'grace@example.com', name: 'Grace' } });
    assert.equal((await prisma.user.findFirst({ where: { email: 'GRACE@example.com ' } })).id, id);
    assert.equal((await prisma.user.findUnique({ where: { email: 'grace@example.com' } })).name, 'Grace');
    const many = await prisma.user.findMany({ where: { email: { in: ['grace@example.com', 'nobody@example.com'] } } });
    assert.deepEqual(
      many.map((user: any) => user.id),
      [id],
    );
    assert.equal(
      await prisma.user.count({ where: { OR: [{ email: { equals: 'grace@example.com' } }, { id: 'none' }] } }),
      1,
    );
    assert.equal(await prisma.user.findFirst({ where: { email: 'nobody@example.com' } }), null);
  });

  test('a filter the index cannot answer is refused', async () => {
    await assert.rejects(prisma.user.findMany({ where: { email: { contains: 'grace' } } }), FieldEncryptionError);
    await assert.rejects(prisma.user.findMany({ where: { name: 'Grace' } }), /no blind index/);
    await assert.rejects(prisma.user.findMany({ orderBy: [{ id: 'asc' }, { email: 'asc' }] }), /cannot be ordered/);
  });
});

describe('writes', () => {
  test('nested create, include and nested update by primary key', async () => {
    const id = randomUUID();
    const user = await prisma.user.create({
      data: {
        id,
        email: 'nested@example.com',
        posts: {
          create: [
            { title: 'one', body: 'first body' },
            { title: 'two', body: 'second body' },
          ],
        },
      },
      include: { posts: { orderBy: { title: 'asc' } } },
    });
    assert.deepEqual(
      user.posts.map((post: any) => post.body),
      ['first body', 'second body'],
    );
    const [first] = user.posts;
    const raw = await rawRow('Post', first.id);
    assert.equal(openLocally(raw.body, `Post.body:${first.id}`), 'first body');
    await prisma.user.update({
      where: { id },
      data: { posts: { update: { where: { id: first.id }, data: { body: 'edited' } } } },
    });
    const read = await prisma.user.findUnique({
      where: { id },
      select: { email: true, posts: { select: { body: true }, orderBy: { title: 'asc' } } },
    });
    assert.deepEqual(read, { email: 'nested@example.com', posts: [{ body: 'edited' }, { body: 'second body' }] });
    const post = await prisma.post.findFirst({
      where: { author: { email: 'nested@example.com' } },
      include: { author: true },
      orderBy: { title: 'asc' },
    });
    assert.equal(post.author.email, 'nested@example.com');
  });

  test('createMany encrypts every row', async () => {
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    const { count } = await prisma.user.createMany({
      data: ids.map((id, index) => ({ id, email: `many${index}@example.com` })),
    });
    assert.equal(count, 3);
    for (const [index, id] of ids.entries()) {
      assert.equal(openLocally((await rawRow('User', id)).email, `User.email:${id}`), `many${index}@example.com`);
    }
    const rows = await prisma.user.findMany({ where: { id: { in: ids } } });
    assert.deepEqual(
      new Set(rows.map((row: any) => row.email)),
      new Set(['many0@example.com', 'many1@example.com', 'many2@example.com']),
    );
  });

  test('update and upsert re-encrypt, and update the index', async () => {
    const id = randomUUID();
    const created = await prisma.user.upsert({
      where: { id },
      create: { id, email: 'up@example.com' },
      update: { email: 'never' },
    });
    assert.equal(created.email, 'up@example.com');
    const before = (await rawRow('User', id)).email;
    const updated = await prisma.user.upsert({
      where: { id },
      create: { id, email: 'never' },
      update: { email: { set: 'up2@example.com' } },
    });
    assert.equal(updated.email, 'up2@example.com');
    const raw = await rawRow('User', id);
    assert.notEqual(raw.email, before);
    assert.equal(raw.emailIndex, hmacHex('up2@example.com'));
    await prisma.user.update({ where: { id }, data: { name: 'Renamed' } });
    assert.equal(openLocally((await rawRow('User', id)).name, `User.name:${id}`), 'Renamed');
  });

  test('writes that cannot bind a value to its row are refused', async () => {
    await assert.rejects(prisma.user.updateMany({ where: {}, data: { name: 'all' } }), /updateMany cannot write it/);
    const id = randomUUID();
    await prisma.user.create({ data: { id, email: 'by-index@example.com' } });
    await assert.rejects(
      prisma.user.update({ where: { email: 'by-index@example.com' }, data: { name: 'x' } }),
      /must be in `where`/,
    );
  });
});

describe('transactions', () => {
  test('an interactive transaction encrypts, and a rollback leaves nothing', async () => {
    const id = randomUUID();
    await prisma.$transaction(async (tx: any) => {
      await tx.user.create({ data: { id, email: 'tx@example.com' } });
      await tx.user.update({ where: { id }, data: { name: 'In transaction' } });
      assert.equal((await tx.user.findFirst({ where: { email: 'tx@example.com' } })).name, 'In transaction');
    });
    assert.equal(openLocally((await rawRow('User', id)).name, `User.name:${id}`), 'In transaction');
    const lost = randomUUID();
    await assert.rejects(
      prisma.$transaction(async (tx: any) => {
        await tx.user.create({ data: { id: lost, email: 'lost@example.com' } });
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.equal((await stack.sql.query('SELECT 1 FROM "User" WHERE id = $1', [lost])).rowCount, 0);
  });

  test('a batch transaction encrypts each of its queries', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const [first, second] = await prisma.$transaction([
      prisma.user.create({ data: { id: a, email: 'batch-a@example.com' } }),
      prisma.user.create({ data: { id: b, email: 'batch-b@example.com' } }),
    ]);
    assert.deepEqual([first.email, second.email], ['batch-a@example.com', 'batch-b@example.com']);
    assert.equal(openLocally((await rawRow('User', b)).email, `User.email:${b}`), 'batch-b@example.com');
  });
});

describe('key rotation', () => {
  const ROWS = 10_000;

  test(`moves a table of ${ROWS} rows to the new key`, async () => {
    // Rows sealed here under k1 (not by the service), inserted with SQL in chunks.
    const values = Array.from({ length: ROWS }, (_, index) => [
      index + 1,
      sealLocally(`note ${index + 1}`, `Note.text:${index + 1}`, 'k1'),
    ]);
    for (let start = 0; start < ROWS; start += 1000) {
      const chunk = values.slice(start, start + 1000);
      const placeholders = chunk.map((_, index) => `($${index * 2 + 1}, $${index * 2 + 2})`).join(', ');
      await stack.sql.query(`INSERT INTO "Note" (id, text) VALUES ${placeholders}`, chunk.flat());
    }
    const rotated = base.$extends(fieldEncryption(options('k2')));
    const batches: number[] = [];
    const result = await rotated.$rotateEncryptionKey('Note', {
      batchSize: 2000,
      onProgress: (progress: any) => batches.push(progress.scanned),
    });
    assert.deepEqual(result, { scanned: ROWS + 1, rotated: ROWS + 1, skipped: 0 });
    assert.deepEqual(batches, [2000, 4000, 6000, 8000, 10_000, 10_001]);
    const { rows } = await stack.sql.query('SELECT id, text FROM "Note" ORDER BY id');
    for (const row of rows) {
      assert.ok(row.text.startsWith('v1.k2.'), `row ${row.id}`);
      if (row.id > 0) assert.equal(openLocally(row.text, `Note.text:${row.id}`), `note ${row.id}`);
    }
    assert.equal((await rotated.note.findUnique({ where: { id: 1234 } })).text, 'note 1234');
    assert.deepEqual(await rotated.$rotateEncryptionKey('Note'), { scanned: ROWS + 1, rotated: 0, skipped: 0 });
  });
});
