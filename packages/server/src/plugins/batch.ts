/**
 * Batches: every route that declares `config.batch` also accepts `{ batch: [body, …] }`
 * (../batch.ts runs it). Its body validator takes either form: a single body is validated exactly
 * as before, a batch only as an envelope of at most BATCH_MAX_ITEMS items, each of which is then
 * validated on its own. Registered before the handler timeout, so that a batch runs under one timer.
 */
import fp from 'fastify-plugin';
import type { FastifySchemaCompiler } from 'fastify';
import { AjvCompiler } from '@fastify/ajv-compiler';
import { AJV_CUSTOM_OPTIONS } from '../ajv-options.ts';
import { batchHandler, isBatchBody, type ItemValidator } from '../batch.ts';
import { batchTransform } from '../openapi-batch.ts';

export interface BatchPluginOptions {
  /** BATCH_MAX_ITEMS. */
  maxItems: number;
}

/** The envelope of a batch; the items are each validated against the single body's schema. */
function envelopeSchema(maxItems: number) {
  return {
    type: 'object',
    properties: { batch: { type: 'array', minItems: 1, maxItems } },
    required: ['batch'],
    additionalProperties: false,
  };
}

export default fp<BatchPluginOptions>(
  async function batches(app, { maxItems }) {
    // The same compiler and options as the app's: an item is refused exactly as its single request would be.
    const compile = AjvCompiler()({}, { customOptions: { ...AJV_CUSTOM_OPTIONS } }) as FastifySchemaCompiler<unknown>;
    const envelope = compile({ schema: envelopeSchema(maxItems), method: 'POST', url: '', httpPart: 'body' });
    const documented = batchTransform(maxItems);
    app.addHook('onRoute', (route) => {
      const config = route.config;
      const options = config?.batch;
      const bodySchema = route.schema?.body;
      if (config === undefined || options === undefined || bodySchema === undefined) return;
      const single = compile({ schema: bodySchema, method: route.method as string, url: route.url, httpPart: 'body' });
      const either: ItemValidator = (body: unknown) => {
        const form = (isBatchBody(body) ? envelope : single) as ItemValidator;
        const valid = form(body);
        either.errors = form.errors ?? null;
        return valid;
      };
      route.validatorCompiler = (part) =>
        (part.httpPart === 'body' ? either : compile(part)) as ReturnType<typeof compile>;
      config.swaggerTransform = documented;
      route.handler = batchHandler({ handler: route.handler, validate: single as ItemValidator, bodySchema, options });
    });
  },
  { name: 'batches' },
);
