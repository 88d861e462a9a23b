/**
 * API documentation: the OpenAPI 3.1 document generated from the route schemas, at /docs/json,
 * and a Swagger UI page at /docs. Both public. Registered before the routes so that it sees them.
 * Every operation gets its request and response examples from one table (openapi-examples.ts).
 */
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import '../route-config.ts';
import { OPERATION_EXAMPLES } from '../openapi-examples.ts';

interface MediaType {
  schema?: unknown;
  example?: unknown;
  examples?: Record<string, { summary?: string; value: unknown }>;
}

interface Operation {
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, { description?: string; content?: Record<string, MediaType> }>;
}

/**
 * Sets a media type's example: `example`, or the first of its named `examples` when the operation
 * already has others (a batch route's batch example), since a media type may not have both.
 */
function setExample(media: MediaType, value: unknown): void {
  if (media.examples === undefined) media.example = value;
  else media.examples = { single: { summary: 'The single form', value }, ...media.examples };
}

/** Adds each operation's examples to its JSON request body and its 200 response, in place. */
export function attachExamples(paths: Record<string, Record<string, Operation>>): void {
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const example = OPERATION_EXAMPLES[`${method.toUpperCase()} ${path}`];
      if (example === undefined) continue;
      const requestBody = operation.requestBody?.content?.[example.requestContentType ?? 'application/json'];
      if (requestBody !== undefined && example.request !== undefined) setExample(requestBody, example.request);
      const ok = operation.responses?.['200'];
      if (ok === undefined) continue;
      const mediaType = example.contentType ?? 'application/json';
      // A route that sends text declares no schema for it: the example brings the media type along.
      ok.content ??= { [mediaType]: { schema: { type: 'string' } } };
      const content = ok.content[mediaType];
      if (content !== undefined) setExample(content, example.response);
    }
  }
}

/** The routes that serialise the whole OpenAPI document on every request. */
const DOCUMENT_ROUTES = new Set(['/docs/json', '/docs/yaml']);
/**
 * Serialising (and compressing) the document costs the CPU of many small API requests, so it is
 * charged as several: a flood of it spends the client's own budget, not the other clients' CPU.
 */
export const DOCUMENT_RATE_LIMIT_COST = 10;

export interface OpenApiOptions {
  version: string;
}

export default fp<OpenApiOptions>(
  async function openApi(app, { version }) {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'crypto-service',
          version,
          description:
            'Cryptographic operations over JSON: hashing, AEAD, signatures, key derivation, MACs, password hashing, key wrapping, sealed boxes and post-quantum KEMs and signatures. Errors are RFC 9457 problem details.',
        },
        components: {
          securitySchemes: {
            apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
            bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          },
        },
        security: [{ apiKey: [] }, { bearer: [] }],
        tags: [
          { name: 'hash', description: 'Message digests' },
          { name: 'aead', description: 'Authenticated encryption (XChaCha20-Poly1305) and secretbox' },
          {
            name: 'stream',
            description: 'Payloads of any length: libsodium secretstream, multipart in, octets out',
          },
          { name: 'sealed-box', description: 'Anonymous public-key encryption' },
          { name: 'multi-recipient', description: 'One message for many recipients (HPKE slots)' },
          { name: 'signatures', description: 'Digital signatures' },
          { name: 'keys', description: 'Key generation and key wrapping' },
          { name: 'kdf', description: 'Key derivation' },
          { name: 'mac', description: 'Message authentication codes' },
          { name: 'password', description: 'Password hashing and password-based encryption' },
          { name: 'post-quantum', description: 'ML-KEM, X-Wing, ML-DSA and SLH-DSA' },
          {
            name: 'openpgp (v1, deprecated)',
            description:
              'The deprecated /v1 OpenPGP routes; their responses carry Deprecation, Sunset and Link headers',
          },
          { name: 'meta', description: 'Algorithms, probes and metrics' },
        ],
      },
      transformObject: (documents) => {
        const document = 'openapiObject' in documents ? documents.openapiObject : documents.swaggerObject;
        attachExamples((document.paths ?? {}) as Record<string, Record<string, Operation>>);
        return document;
      },
    });
    // The UI's own routes are public, like the probes: reading the documentation needs no credential.
    // They are rate limited like every public route, the whole document at its serialising cost.
    await app.register(async (docs) => {
      docs.addHook('onRoute', (route) => {
        const rateLimitCost = DOCUMENT_ROUTES.has(route.url) ? DOCUMENT_RATE_LIMIT_COST : 1;
        route.config = { ...route.config, public: true, rateLimitCost };
      });
      await docs.register(swaggerUi, {
        routePrefix: '/docs',
        uiConfig: { deepLinking: true, tryItOutEnabled: true, displayRequestDuration: true },
        staticCSP: false,
      });
    });
  },
  { name: 'openapi' },
);
