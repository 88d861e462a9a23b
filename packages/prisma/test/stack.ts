/**
 * What each test file runs against: the real service, a throw-away PostgreSQL with the schema's
 * tables, and a Prisma Client generated for this process (offline: the schema is parsed by
 * WebAssembly, and the native schema engine Prisma would download is never called).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { startCryptoService, type CryptoService } from '@crypto-service/testing';
import { startPostgres, type Postgres } from '../../../scripts/test-support/postgres.ts';

// Where npm put the CLI (hoisted or in this package's own node_modules), as Node resolves it.
const PRISMA_CLI = join(dirname(createRequire(import.meta.url).resolve('prisma/package.json')), 'build/index.js');

export const TABLES = `
  CREATE TABLE "User" (id text PRIMARY KEY, email text, "emailIndex" text UNIQUE, name text);
  CREATE TABLE "Post" (id text PRIMARY KEY, title text NOT NULL, body text, "authorId" text NOT NULL REFERENCES "User"(id));
  CREATE TABLE "Note" (id integer PRIMARY KEY, text text);
`;

export interface Stack {
  service: CryptoService;
  postgres: Postgres;
  sql: pg.Client;
  /** The generated PrismaClient class. */
  PrismaClient: new (options: { adapter: PrismaPg }) => any;
  adapter(): PrismaPg;
  /** The folder of the generated client. */
  generated: string;
  keys: { k1: string; k2: string; index: string };
  close(): Promise<void>;
}

/** Generates the client into `generated/<pid>/`, from a copy of the schema that names that folder. */
async function generateClient(generated: string): Promise<string> {
  const name = String(process.pid);
  const schema = (await readFile(join(import.meta.dirname, 'schema.prisma'), 'utf8')).replace(
    'provider               = "prisma-client"',
    `provider = "prisma-client"\n  output = "./${name}"`,
  );
  await mkdir(generated, { recursive: true });
  await writeFile(join(generated, `${name}.prisma`), schema);
  const result = spawnSync(process.execPath, [PRISMA_CLI, 'generate', '--schema', join(generated, `${name}.prisma`)], {
    encoding: 'utf8',
    // Any executable will do: generate never runs the schema engine, but looks for one.
    env: {
      ...process.env,
      PRISMA_SCHEMA_ENGINE_BINARY: process.execPath,
      CHECKPOINT_DISABLE: '1',
      PRISMA_HIDE_UPDATE_MESSAGE: '1',
    },
  });
  if (result.status !== 0) throw new Error(`prisma generate failed: ${result.stderr}${result.stdout}`);
  return join(generated, name);
}

export async function startStack(): Promise<Stack> {
  const [service, postgres] = await Promise.all([
    startCryptoService({ env: { RATE_LIMIT_MAX: '10000000' } }),
    startPostgres(),
  ]);
  const generated = join(import.meta.dirname, 'generated');
  const output = await generateClient(generated);
  const sql = new pg.Client({ connectionString: postgres.url });
  await sql.connect();
  await sql.query(TABLES);
  const { PrismaClient } = await import(pathToFileURL(join(output, 'client.ts')).href);
  return {
    service,
    postgres,
    sql,
    PrismaClient,
    adapter: () => new PrismaPg({ connectionString: postgres.url }),
    generated: output,
    keys: {
      k1: randomBytes(32).toString('hex'),
      k2: randomBytes(32).toString('hex'),
      index: randomBytes(32).toString('hex'),
    },
    async close() {
      await sql.end();
      await Promise.all([service.close(), postgres.stop()]);
      await rm(output, { recursive: true, force: true });
      await rm(`${output}.prisma`, { force: true });
      // The folder goes too once no other test process is using it.
      await rmdir(generated).catch(() => undefined);
    },
  };
}
