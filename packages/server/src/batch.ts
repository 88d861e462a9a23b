/**
 * Runs the batch form of a route, `{ batch: [body, …] }`: every item is validated and handled
 * exactly as the single request's body would be, by the route's own handler, and answered as its
 * `data` or as the problem the single request would have got. The whole batch is charged to the
 * rate limit before any item runs; items run one after another, so that heavy ones take their
 * turn in the same queues, under the same per-client cap, as a client sending them one by one.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FastifyError, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { BatchEntry } from '@crypto-service/protocol';
import { PrivateKeyScope } from '@crypto-service/core';
import { problemOf } from './errors.ts';
import { stillWanted } from './handler-timeout.ts';
import { chargeUpTo } from './rate-limit/costs.ts';
import './route-config.ts';

/** How a route takes part in batches: `cost` prices one item whose cost depends on its body. */
export interface BatchOptions {
  cost?: (item: never) => number;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route also accepts `{ batch: [body, …] }` (batch.ts, plugins/batch.ts). */
    batch?: BatchOptions;
  }
  interface FastifyRequest {
    /** In a batch item: the private keys imported for the whole batch, so that a shared key is imported once. */
    privateKeys?: PrivateKeyScope;
  }
}

/** A route's batch options with `cost` typed by its request body. */
export function pricedBy<Item>(cost: (item: Item) => number): BatchOptions {
  return { cost: cost as (item: never) => number };
}

/** A compiled request validator, as Ajv builds it. */
export interface ItemValidator {
  (value: unknown): boolean;
  errors?: unknown[] | null;
}

/** What a batch needs of its route: the single handler, the single body's validator and schema, the price. */
export interface BatchRoute {
  handler: RouteHandlerMethod;
  validate: ItemValidator;
  bodySchema: unknown;
  options: BatchOptions;
}

/** The longest a batch keeps the event loop before letting other requests in. */
const TURN_MS = 10;

/** Whether a body is the batch form: an object with a `batch` member (no single body has one). */
export function isBatchBody(body: unknown): body is { batch: unknown[] } {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && Object.hasOwn(body, 'batch');
}

/** The route's own cost, charged when the request arrived: what each item costs at least. */
function baseCost(request: FastifyRequest): number {
  const cost = request.routeOptions.config.rateLimitCost;
  return cost === false ? 0 : (cost ?? 1);
}

/** The error Fastify would have thrown for a body that failed its schema. */
function validationError(errors: unknown[] | null | undefined): FastifyError {
  return { validation: errors ?? [], validationContext: 'body' } as unknown as FastifyError;
}

/**
 * The request and reply the single handler sees for one item: the batch's own, with the item as
 * the body, and a rate-limit charge that draws on what the batch has paid for the item already.
 */
function itemContext(
  request: FastifyRequest,
  reply: FastifyReply,
  item: unknown,
  paid: number,
  base: number,
  keys: PrivateKeyScope,
) {
  const itemRequest = Object.create(request) as FastifyRequest;
  itemRequest.body = item;
  itemRequest.privateKeys = keys;
  const itemReply = Object.create(reply) as FastifyReply;
  (itemReply as { request: FastifyRequest }).request = itemRequest;
  let charged = base;
  itemReply.chargeRateLimit = async (units: number) => {
    charged += units;
    // A price below the handler's own charge would let the batch cost less than its items: never.
    if (charged > paid) {
      const extra = charged - paid;
      paid = charged;
      await reply.chargeRateLimit(extra);
    }
  };
  return { itemRequest, itemReply };
}

async function runItem(
  this: unknown,
  route: BatchRoute,
  request: FastifyRequest,
  reply: FastifyReply,
  item: unknown,
  paid: number,
  base: number,
  keys: PrivateKeyScope,
): Promise<BatchEntry<unknown>> {
  const { itemRequest, itemReply } = itemContext(request, reply, item, paid, base, keys);
  try {
    const result = (await (route.handler as (...args: unknown[]) => unknown).call(this, itemRequest, itemReply)) as
      { data: unknown } | undefined;
    if (result === undefined) throw new Error('a batched handler answered without a result');
    return { data: result.data };
  } catch (error) {
    return { error: problemOf(error as FastifyError, itemRequest, item, route.bodySchema).problem };
  }
}

/** Answers a batch: `{ data: [entry, …] }`, serialised here (the route's serialiser knows single answers only). */
export async function runBatch(
  this: unknown,
  route: BatchRoute,
  request: FastifyRequest,
  reply: FastifyReply,
  items: unknown[],
): Promise<string> {
  const base = baseCost(request);
  const entries: BatchEntry<unknown>[] = new Array(items.length);
  const prices: number[] = new Array(items.length).fill(base);
  let total = 0;
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    if (route.validate(item)) {
      prices[index] = route.options.cost === undefined ? base : (route.options.cost as (item: unknown) => number)(item);
    } else {
      entries[index] = {
        error: problemOf(validationError(route.validate.errors), request, item, route.bodySchema).problem,
      };
    }
    total += prices[index]!;
  }
  // The sum of the items' costs, before any work: a batch over the limit is refused whole.
  await chargeUpTo(reply, total);
  const wanted = stillWanted(reply);
  // Dropped with the batch: no private key outlives the request that carried it.
  const keys = new PrivateKeyScope();
  let turnStartedAt = performance.now();
  for (let index = 0; index < items.length; index++) {
    if (entries[index] !== undefined) continue;
    // Timed out or abandoned: nobody reads the rest.
    if (!wanted()) break;
    entries[index] = await runItem.call(this, route, request, reply, items[index], prices[index]!, base, keys);
    if (performance.now() - turnStartedAt > TURN_MS) {
      await nextTurn();
      turnStartedAt = performance.now();
    }
  }
  reply.type('application/json; charset=utf-8');
  return JSON.stringify({ data: entries });
}

/** The route's handler, taking the batch form too; a single body goes to the handler unchanged. */
export function batchHandler(route: BatchRoute): RouteHandlerMethod {
  return function handleEither(this: unknown, request, reply) {
    const body = request.body;
    if (!isBatchBody(body)) return (route.handler as (...args: unknown[]) => unknown).call(this, request, reply);
    return runBatch.call(this, route, request, reply, body.batch);
  } as RouteHandlerMethod;
}
