/** The service started by the installed CLI (`crypto-service serve`), on a given runtime, from a consumer project. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';

export interface RunningService {
  url: string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

export async function startService(
  project: string,
  env: NodeJS.ProcessEnv,
  extra: Record<string, string>,
): Promise<RunningService> {
  const port = await freePort();
  const bin = join(project, 'node_modules/.bin/crypto-service');
  const child: ChildProcess = spawn(bin, ['serve', '--port', String(port), '--host', '127.0.0.1'], {
    cwd: project,
    env: { ...env, NODE_ENV: 'test', LOG_LEVEL: 'info', ...extra },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (!output.includes(`Server listening at ${url}`)) {
    if (child.exitCode !== null) throw new Error(`crypto-service serve exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`crypto-service serve did not listen within 60 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // Listening comes before the start-up self-tests have passed; /ready says when they have.
  while (
    (await fetch(`${url}/ready`).then(
      (response) => response.status,
      () => 0,
    )) !== 200
  ) {
    if (Date.now() > deadline) throw new Error(`the service was not ready within 60 s:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    async stop() {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      if (code !== 0) throw new Error(`crypto-service serve exited with ${code} after SIGTERM:\n${output}`);
    },
  };
}
