/**
 * The OpenAPI description of a route's batch form, with examples built from the route's own
 * (openapi-examples.ts).
 */
import type { FastifySchema } from 'fastify';
import type { SwaggerTransform } from '@fastify/swagger';
import type { TSchema } from 'typebox';
import { OPERATION_EXAMPLES, type OperationExample } from './openapi-examples.ts';

interface DocumentedSchema extends FastifySchema {
  body?: TSchema;
  response?: Record<string, TSchema>;
  description?: string;
}

/** The operation's description: the batch form, with a request and answer example when the route has one. */
function describeBatch(maxItems: number, example: OperationExample | undefined): string {
  const lines = [
    `Also takes a batch: \`{ "batch": [body, …] }\`, up to ${maxItems} items, each exactly this operation's body, ` +
      'answered with `200 { "data": [entry, …] }` in the same order, each entry `{ "data": … }` (the single ' +
      'answer\'s data) or `{ "error": problem }` (the single request\'s problem; docs/api.md, Batches). The ' +
      'schemas below are those of the single form.',
  ];
  if (example?.request !== undefined) {
    const data = (example.response as { data: unknown }).data;
    lines.push('', 'Batch request and answer:', '', '```json');
    lines.push(JSON.stringify({ batch: [example.request, example.request] }));
    lines.push(JSON.stringify({ data: [{ data }, { data }] }), '```');
  }
  return lines.join('\n');
}

/**
 * The route's schema with its batch form described: the request and 200 schemas stay those of the
 * single form, which readers of the document (code generators, the fuzzer) take as objects of
 * fields; the batch form is described in words, with examples.
 */
export function withBatchForm(schema: DocumentedSchema, key: string, maxItems: number): DocumentedSchema {
  return { ...schema, description: describeBatch(maxItems, OPERATION_EXAMPLES[key]) };
}

/** The swaggerTransform of a batch route. */
export function batchTransform(maxItems: number): SwaggerTransform {
  return ({ schema, url, route }) => ({
    schema: withBatchForm(schema as DocumentedSchema, `${String(route.method)} ${url}`, maxItems) as never,
    url,
  });
}
