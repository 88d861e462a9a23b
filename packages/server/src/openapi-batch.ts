/**
 * The OpenAPI description of a route's batch form: its request body becomes `single | { batch:
 * [single, …] }` and its 200 answer `single | { data: [entry, …] }`, each batch form with an
 * example built from the route's own (openapi-examples.ts).
 */
import type { FastifySchema } from 'fastify';
import type { SwaggerTransform } from '@fastify/swagger';
import { Type, type TSchema } from 'typebox';
import { BatchRequestOf, BatchResponseOf } from '@crypto-service/protocol';
import { OPERATION_EXAMPLES } from './openapi-examples.ts';

const DESCRIPTION =
  'Also takes a batch: `{ "batch": [body, …] }`, each item exactly this operation\'s body, answered with ' +
  '`{ "data": [entry, …] }` in the same order, each entry `{ "data": … }` or `{ "error": problem }` ' +
  '(docs/api.md, Batches).';

interface DocumentedSchema extends FastifySchema {
  body?: TSchema;
  response?: Record<string, TSchema>;
  description?: string;
}

/** The route's schema with its batch form beside the single one. */
export function withBatchForm(schema: DocumentedSchema, key: string, maxItems: number): DocumentedSchema {
  const body = schema.body;
  const ok = schema.response?.['200'] as (TSchema & { properties?: { data?: TSchema } }) | undefined;
  const data = ok?.properties?.data;
  if (body === undefined || ok === undefined || data === undefined) return schema;
  const example = OPERATION_EXAMPLES[key];
  const batchRequest = { ...BatchRequestOf(body, maxItems) } as Record<string, unknown>;
  const batchResponse = { ...BatchResponseOf(data) } as Record<string, unknown>;
  if (example?.request !== undefined) {
    batchRequest.examples = [{ batch: [example.request, example.request] }];
    const single = (example.response as { data: unknown }).data;
    batchResponse.examples = [{ data: [{ data: single }, { data: single }] }];
  }
  return {
    ...schema,
    description: DESCRIPTION,
    body: Type.Union([body, batchRequest as TSchema]),
    response: { ...schema.response, 200: Type.Union([ok, batchResponse as TSchema]) },
  };
}

/** The swaggerTransform of a batch route. */
export function batchTransform(maxItems: number): SwaggerTransform {
  return ({ schema, url, route }) => ({
    schema: withBatchForm(schema as DocumentedSchema, `${String(route.method)} ${url}`, maxItems) as never,
    url,
  });
}
