/**
 * The baseline of bench/load.ts: the same packages/core calls as the production routes, behind a
 * bare Fastify with no pipeline at all — no helmet, CORS, rate limit, compression, authentication,
 * metrics, schema validation or response schema, strict-UTF-8 body parser, or logger. The gap
 * between this and the production server is what the pipeline costs per request.
 *
 *   PORT=4000 node bench/bare-server.ts      (bench/load.ts starts it itself)
 *
 * Routes: GET /live, POST /hash {algorithm, data}, POST /encrypt {key, plaintext},
 * POST /sign {privateKey, message}; bodies and answers have the production routes' shapes.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { bytesToBase64, bytesToHex, hexToBytes, utf8ToBytes } from '../packages/core/src/codec.ts';
import { digest } from '../packages/core/src/hash.ts';
import { xchachaSeal } from '../packages/core/src/aead.ts';
import { signMessage } from '../packages/core/src/signature.ts';

// fastify is a dependency of packages/server, not of the root: resolve it from there, so that the
// baseline runs exactly the Fastify that the service runs.
const fromServer = createRequire(new URL('../packages/server/package.json', import.meta.url));
const { default: Fastify } = (await import(pathToFileURL(fromServer.resolve('fastify')).href)) as typeof import('fastify');

interface HashBody { algorithm: string; data: string }
interface EncryptBody { key: string; plaintext: string }
interface SignBody { privateKey: string; message: string }

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

const port = Number(process.env.PORT ?? 4000);
await app.listen({ port, host: process.env.HOST ?? '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
