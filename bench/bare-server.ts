/**
 * The baseline of bench/load.ts: the same core calls as the production routes behind a bare
 * Fastify with no pipeline at all (no security headers, CORS, rate limit, compression,
 * authentication, metrics, schemas or logger). The gap between it and the production server is
 * what the pipeline costs a request. bench/load.ts starts it with PORT, and BARE_WORKERS=N for N
 * processes behind node:cluster.
 */
// First, as the server's entry point does: reading AsyncLocalStorage settles Node's async-context
// implementation before V8 optimises the tick functions, and the baseline must differ from
// production in its request pipeline only.
import { AsyncLocalStorage } from 'node:async_hooks';
import cluster from 'node:cluster';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import {
  bytesToBase64,
  bytesToHex,
  digest,
  hexToBytes,
  mlDsaSign,
  mlKemEncapsulate,
  signMessage,
  utf8ToBytes,
  xchachaSeal,
} from '@crypto-service/core';
import type * as FastifyModule from 'fastify';

if (typeof AsyncLocalStorage !== 'function') throw new Error('node:async_hooks has no AsyncLocalStorage');

async function serve(): Promise<void> {
  // Fastify is the server package's dependency, not the root's: resolved from there, so that the
  // baseline runs exactly the Fastify the service runs.
  const fromServer = createRequire(new URL('../packages/server/package.json', import.meta.url));
  const { default: Fastify } = (await import(
    pathToFileURL(fromServer.resolve('fastify')).href
  )) as typeof FastifyModule;
  const app = Fastify({ logger: false });

  app.get('/live', async () => ({ status: 'alive' }));
  app.post<{ Body: { algorithm: string; data: string } }>('/hash', async (request) => ({
    data: bytesToHex(digest(request.body.algorithm, utf8ToBytes(request.body.data))),
  }));
  app.post<{ Body: { key: string; plaintext: string } }>('/encrypt', async (request) => ({
    data: {
      ciphertext: bytesToBase64(xchachaSeal(hexToBytes(request.body.key), utf8ToBytes(request.body.plaintext))),
      algorithm: 'xchacha20-poly1305',
    },
  }));
  app.post<{ Body: { privateKey: string; message: string } }>('/sign', async (request) => ({
    data: {
      signature: bytesToHex(
        await signMessage('ed25519', hexToBytes(request.body.privateKey), utf8ToBytes(request.body.message)),
      ),
      algorithm: 'ed25519',
    },
  }));
  app.post<{ Body: { privateKey: string; message: string; algorithm?: string } }>('/pq/dsa/sign', async (request) => {
    const { algorithm, signature } = await mlDsaSign(
      hexToBytes(request.body.privateKey),
      utf8ToBytes(request.body.message),
      { algorithm: request.body.algorithm },
    );
    return { data: { signature: bytesToHex(signature), algorithm } };
  });
  app.post<{ Body: { publicKey: string } }>('/pq/encapsulate', async (request) => {
    const { algorithm, ciphertext, sharedSecret } = await mlKemEncapsulate(hexToBytes(request.body.publicKey));
    return { data: { ciphertext: bytesToHex(ciphertext), sharedSecret: bytesToHex(sharedSecret), algorithm } };
  });

  await app.listen({ port: Number(process.env.PORT ?? 4000), host: process.env.HOST ?? '127.0.0.1' });
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

const workers = Number(process.env.BARE_WORKERS ?? 1);
if (workers > 1 && cluster.isPrimary) {
  for (let i = 0; i < workers; i++) cluster.fork();
  // The primary exits by itself once the last worker has closed its server and gone.
  process.on('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
  });
} else {
  await serve();
}
