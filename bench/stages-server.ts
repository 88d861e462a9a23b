/**
 * Serves bench/lib/stages-app.ts for bench/pipeline-stages.ts: the production app's POST /v2/hash
 * route with the pipeline stages named in STAGES (see that file for the list).
 *
 *   STAGES=logger,helmet,rate-limit,compress,auth,metrics,json-body,openapi CRYPTO_API_KEY=… PORT=4001 node bench/stages-server.ts
 */
// First, as the production server and the bare baseline do (packages/server/src/async-context.ts).
import { settleAsyncContext } from '../packages/server/src/async-context.ts';
import { buildStagesApp } from './lib/stages-app.ts';

settleAsyncContext();

const stages = new Set((process.env.STAGES ?? '').split(',').filter((stage) => stage !== ''));
const app = await buildStagesApp(stages, process.env.CRYPTO_API_KEY ?? '');
await app.listen({ port: Number(process.env.PORT ?? 4001), host: process.env.HOST ?? '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
