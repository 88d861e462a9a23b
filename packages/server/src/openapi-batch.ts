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

/** Marks the batch branch of a documented schema, so that a reader can tell it from the single one. */
export const BATCH_FORM = 'x-batch-form';

/** A documented body or 200 schema, or one branch of it. */
export interface DocumentedForm {
  anyOf?: DocumentedForm[];
  [BATCH_FORM]?: true;
}

/** The single form of a documented body or 200 schema: the schema itself unless it is a batch route's. */
export function singleForm<S extends DocumentedForm>(schema: S): S {
  if (schema.anyOf?.some((form) => form[BATCH_FORM] === true) !== true) return schema;
  return schema.anyOf.find((form) => form[BATCH_FORM] !== true) as S;
}

/** A named OpenAPI example (`x-examples` becomes the media type's `examples`). */
const named = (value: unknown) => ({ batch: { summary: 'A batch of two items', value } });

/**
 * The route's schema with its batch form beside the single one, each a branch of an `anyOf`; the
 * batch example sits beside the single one that openapi.ts adds to every operation.
 */
export function withBatchForm(schema: DocumentedSchema, key: string, maxItems: number): DocumentedSchema {
  const body = schema.body;
  const ok = schema.response?.['200'] as (TSchema & { properties?: { data?: TSchema } }) | undefined;
  const data = ok?.properties?.data;
  if (body === undefined || ok === undefined || data === undefined) return schema;
  const example = OPERATION_EXAMPLES[key];
  const request: Record<string, unknown> = {
    ...Type.Union([body, { ...BatchRequestOf(body, maxItems), [BATCH_FORM]: true }]),
  };
  const response: Record<string, unknown> = { ...Type.Union([ok, { ...BatchResponseOf(data), [BATCH_FORM]: true }]) };
  if (example?.request !== undefined) {
    const single = (example.response as { data: unknown }).data;
    request['x-examples'] = named({ batch: [example.request, example.request] });
    response['x-examples'] = named({ data: [{ data: single }, { data: single }] });
  }
  const description = [schema.description, DESCRIPTION].filter((text) => text !== undefined).join('\n\n');
  return {
    ...schema,
    description,
    body: request as TSchema,
    response: { ...schema.response, 200: response as TSchema },
  };
}

/** The swaggerTransform of a batch route. */
export function batchTransform(maxItems: number): SwaggerTransform {
  return ({ schema, url, route }) => ({
    schema: withBatchForm(schema as DocumentedSchema, `${String(route.method)} ${url}`, maxItems) as never,
    url,
  });
}
