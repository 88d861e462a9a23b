/**
 * A throw-away PostgreSQL server for the ORM packages' tests: a new cluster in a temporary directory on a free
 * loopback port, removed on stop. It runs as the `postgres` user when the tests run as root, since
 * PostgreSQL refuses to run as root.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Postgres {
  url: string;
  stop(): Promise<void>;
}

/** Debian keeps initdb and pg_ctl out of PATH, under /usr/lib/postgresql/<major>/bin. */
function binDirectory(): string {
  const onPath = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim();
  if (onPath !== '') return join(onPath, '..');
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = majors.map((major) => join(root, major, 'bin')).find((dir) => existsSync(join(dir, 'initdb')));
  if (found === undefined) throw new Error('PostgreSQL is not installed: apt-get install postgresql');
  return found;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string): number => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

export async function startPostgres(): Promise<Postgres> {
  const bin = binDirectory();
  const dir = await mkdtemp(join(tmpdir(), 'crypto-service-pg-'));
  const user = postgresUser();
  if (user !== undefined) {
    await chmod(dir, 0o700);
    await chown(dir, user.uid, user.gid);
  }
  const run = (command: string, args: string[]): void => {
    const result = spawnSync(join(bin, command), args, { encoding: 'utf8', ...(user ?? {}) });
    if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr || result.stdout}`);
  };
  const data = join(dir, 'data');
  const port = await freePort();
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  run('pg_ctl', [
    'start',
    '-D',
    data,
    '-w',
    '-l',
    join(dir, 'log'),
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`,
  ]);
  const stopNow = (): void => {
    spawnSync(join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', 'immediate'], { ...(user ?? {}) });
  };
  // A test process that ends without stop() (a failed `before`) must not leave a server behind.
  const stopOnExit = (): void => {
    stopNow();
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stopOnExit);
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      process.off('exit', stopOnExit);
      stopNow();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
