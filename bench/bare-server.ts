/**
 * The baseline of bench/load.ts: the same packages/core calls as the production routes, behind a
 * bare Fastify with no pipeline at all — no helmet, CORS, rate limit, compression, authentication,
 * metrics, schema validation or response schema, strict-UTF-8 body parser, or logger. The gap
 * between this and the production server is what the pipeline costs per request.
 *
 *   PORT=4000 node bench/bare-server.ts      (bench/load.ts starts it itself)
 *   PORT=4000 BARE_WORKERS=2 node bench/bare-server.ts
 *
 * BARE_WORKERS=N (N ≥ 2) runs N copies behind node:cluster, as the production server's WORKERS
 * does (here the primary only hands out connections; production's also keeps the host's rate-limit
 * counts and gathers the workers' metrics): what N processes serve when
 * the request costs nothing but Fastify and the primitive. bench/load.ts --workers N compares the
 * production cluster with it ("bare-N"), which measures the most any cluster could serve on the
 * machine with that load generator.
 *
 * Routes: GET /live, POST /hash {algorithm, data}, POST /encrypt {key, plaintext},
 * POST /sign {privateKey, message}, POST /pq/dsa/sign {secretKey, message, level} (ML-DSA) and
 * POST /pq/encapsulate {publicKey} (ML-KEM); bodies and answers have the production routes' shapes.
 *
 * The post-quantum routes call core's mlDsaSign and mlKemEncapsulate directly, awaited on the event
 * loop. Production runs the same functions through its offload (packages/server/src/pq-offload.ts):
 * on Node 24 that is the same direct call (node:crypto does the work in libuv's pool), so only the
 * pipeline differs; on Node 22 production sends ML-DSA to its worker threads while this server
 * runs @noble/post-quantum on its event loop (ML-KEM stays on the event loop in both).
 */
// First, as in the production server's entry point (packages/server/src/async-context.ts): when
// Node settles its async-context implementation changes the cost of every tick by a few per cent,
// and the baseline must differ from production in its request pipeline only.
import { settleAsyncContext } from '../packages/server/src/async-context.ts';
import cluster from 'node:cluster';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { bytesToBase64, bytesToHex, hexToBytes, utf8ToBytes } from '../packages/core/src/codec.ts';
import { digest } from '../packages/core/src/hash.ts';
import { xchachaSeal } from '../packages/core/src/aead.ts';
import { signMessage } from '../packages/core/src/signature.ts';
import { mlDsaSign } from '../packages/core/src/ml-dsa.ts';
import { mlKemEncapsulate } from '../packages/core/src/ml-kem.ts';

settleAsyncContext();

interface HashBody { algorithm: string; data: string }
interface EncryptBody { key: string; plaintext: string }
interface SignBody { privateKey: string; message: string }
interface MlDsaSignBody { secretKey: string; message: string; level?: number }
interface EncapsulateBody { publicKey: string }

/** The bare app on PORT: one process, or one of BARE_WORKERS. */
async function serve(): Promise<void> {
  // fastify is a dependency of packages/server, not of the root: resolve it from there, so that the
  // baseline runs exactly the Fastify that the service runs.
  const fromServer = createRequire(new URL('../packages/server/package.json', import.meta.url));
  const { default: Fastify } = (await import(pathToFileURL(fromServer.resolve('fastify')).href)) as typeof import('fastify');

  const app = Fastify({ logger: false });

  app.get('/live', async () => ({ status: 'alive' }));

  app.post<{ Body: HashBody }>('/hash', async (request) => ({
    data: bytesToHex(digest(request.body.algorithm, utf8ToBytes(request.body.data))),
  }));

  app.post<{ Body: EncryptBody }>('/encrypt', async (request) => ({
    data: { ciphertext: bytesToBase64(xchachaSeal(hexToBytes(request.body.key), utf8ToBytes(request.body.plaintext))), algorithm: 'xchacha20-poly1305' },
  }));

  app.post<{ Body: SignBody }>('/sign', async (request) => ({
    data: { signature: bytesToHex(await signMessage('ed25519', hexToBytes(request.body.privateKey), utf8ToBytes(request.body.message))), algorithm: 'ed25519' },
  }));

  app.post<{ Body: MlDsaSignBody }>('/pq/dsa/sign', async (request) => {
    const { algorithm, signature } = await mlDsaSign(hexToBytes(request.body.secretKey), utf8ToBytes(request.body.message), { level: request.body.level });
    return { data: { signature: bytesToHex(signature), algorithm } };
  });

  app.post<{ Body: EncapsulateBody }>('/pq/encapsulate', async (request) => {
    const { algorithm, ciphertext, sharedSecret } = await mlKemEncapsulate(hexToBytes(request.body.publicKey));
    return { data: { ciphertext: bytesToHex(ciphertext), sharedSecret: bytesToHex(sharedSecret), algorithm } };
  });

  const port = Number(process.env.PORT ?? 4000);
  await app.listen({ port, host: process.env.HOST ?? '127.0.0.1' });
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

const workers = Number(process.env.BARE_WORKERS ?? 1);
if (workers > 1 && cluster.isPrimary) {
  for (let i = 0; i < workers; i++) cluster.fork();
  // SIGTERM goes on to the workers; each closes its server and exits, and with the last of them
  // gone the primary has nothing left to wait for and exits (0) by itself.
  process.on('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
  });
} else {
  await serve();
}
