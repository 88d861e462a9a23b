import fp from 'fastify-plugin';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { bytesToHex, decodeText, digest } from '@crypto-service/core';
import { HashRequest, HashResponse } from '@crypto-service/protocol';
import { problemResponses } from './responses.ts';
import '../route-config.ts';
import '../batch.ts';

/** `POST /v2/hash`: decode, digest, encode. */
export const hashRoutes = fp(
  async function hashRoutes(fastify) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/v2/hash',
      {
        config: { scope: 'crypto:hash', operation: 'hash.digest', batch: {} },
        schema: {
          tags: ['hash'],
          summary: 'Digest of data with SHA-2, SHA-3, SHAKE, BLAKE2b or BLAKE3',
          body: HashRequest,
          response: { 200: HashResponse, ...problemResponses },
        },
      },
      async (request) => {
        const { algorithm, data, encoding = 'utf8', length } = request.body;
        const result = app.operations.run(request, algorithm, () =>
          digest(algorithm, decodeText(data, encoding, '/data'), length),
        );
        return { data: bytesToHex(result) };
      },
    );
  },
  { name: 'hash-routes', dependencies: ['metrics'], encapsulate: true },
);
