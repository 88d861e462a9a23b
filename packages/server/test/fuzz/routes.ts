/**
 * Which routes to fuzz, read from the app itself so that none is missed: every POST under /v1 and
 * /v2 in Fastify's route table, with its body and 200 schemas from the OpenAPI document (a JSON
 * body, a batch route's single form, which is also each item of its batch form, or a multipart
 * form for the routes that stream).
 */
import type { FastifyInstance } from 'fastify';
import { resolverFor, type JsonSchema, type SchemaResolver } from './json-schema.ts';
import { singleForm } from '../../src/openapi-batch.ts';

export interface FuzzRoute {
  /** `/v2/hash` */
  path: string;
  /** The JSON request body schema; undefined when the OpenAPI document has none. */
  body: JsonSchema | undefined;
  /** The multipart/form-data request schema, for a route that streams its input (then `body` is undefined). */
  form: JsonSchema | undefined;
  /** The 200 response schema (JSON). */
  ok: JsonSchema | undefined;
  /** The 200 response is documented as application/octet-stream (a streamed answer). */
  okOctets: boolean;
  resolve: SchemaResolver;
}

interface OpenApiOperation {
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

export const FUZZED_PREFIXES = ['/v1/', '/v2/'] as const;
export const isFuzzedPath = (path: string) => FUZZED_PREFIXES.some((prefix) => path.startsWith(prefix));

/**
 * `METHOD path` of every route in Fastify's table, from printRoutes: the one public listing of
 * the radix tree. Each line is `<indent>├── <segment> (<METHODS>)`, four columns per level; a
 * node's full path is its ancestors' segments joined.
 */
export function routeTable(app: FastifyInstance): string[] {
  const entries: string[] = [];
  const segments: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:[│ ] {3})*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (match === null) continue;
    const depth = (match[1] ?? '').length / 4;
    segments.length = depth;
    segments.push(match[2] ?? '');
    for (const method of (match[3] ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean)) {
      entries.push(`${method} ${segments.join('')}`);
    }
  }
  return entries;
}

export function openApiDocument(app: FastifyInstance): OpenApiDocument {
  return app.swagger() as unknown as OpenApiDocument;
}

const single = (schema: JsonSchema | undefined) => (schema === undefined ? undefined : singleForm(schema));

/** Every POST /v1 and /v2 route: the route table says which exist, the OpenAPI document what they take. */
export function fuzzRoutes(app: FastifyInstance): FuzzRoute[] {
  const document = openApiDocument(app);
  const resolve = resolverFor(document.components?.schemas);
  const paths = routeTable(app)
    .filter((entry) => entry.startsWith('POST '))
    .map((entry) => entry.slice('POST '.length))
    .filter(isFuzzedPath);
  return [...new Set(paths)].sort().map((path) => {
    const operation = document.paths[path]?.post;
    return {
      path,
      body: single(operation?.requestBody?.content?.['application/json']?.schema),
      form: operation?.requestBody?.content?.['multipart/form-data']?.schema,
      ok: single(operation?.responses?.['200']?.content?.['application/json']?.schema),
      okOctets: operation?.responses?.['200']?.content?.['application/octet-stream'] !== undefined,
      resolve,
    };
  });
}
