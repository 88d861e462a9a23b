import fp from 'fastify-plugin';
import { ALGORITHM_REGISTRY } from '@crypto-service/core';
import { AlgorithmsResponse } from '@crypto-service/protocol';
import { problemResponses } from './responses.ts';

/** `GET /v2/algorithms`: the registry itself, the same table that drives every route's validation. */
export const algorithmRoutes = fp(
  async function algorithmRoutes(app) {
    const body = {
      data: Object.fromEntries(Object.entries(ALGORITHM_REGISTRY).map(([family, ids]) => [family, [...ids]])),
    };
    app.get(
      '/v2/algorithms',
      {
        schema: {
          tags: ['meta'],
          summary: 'Every algorithm identifier each route family accepts',
          response: { 200: AlgorithmsResponse, ...problemResponses },
        },
      },
      async () => body,
    );
  },
  { name: 'algorithm-routes', encapsulate: true },
);
