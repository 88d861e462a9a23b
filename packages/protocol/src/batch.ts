/**
 * The batch form of a route: `{ "batch": [ body, … ] }`, each item exactly the single request's
 * body, answered with `{ "data": [ entry, … ] }` in the same order, each entry either the single
 * answer's `data` or the problem the single request would have been answered with.
 */
import { Type, type Static, type TSchema } from 'typebox';
import { ProblemSchema } from './common.ts';
import type { Problem } from './errors.ts';

/** BATCH_MAX_ITEMS when unset: the most items one batch may hold. */
export const DEFAULT_BATCH_MAX_ITEMS = 1000;

/** The problem shape without its `$id`, so that it can sit inside every batch schema. */
const BatchProblem = Type.Object(ProblemSchema.properties, { description: 'RFC 9457 problem details' });

/** `{ batch: [item, …] }` with at most `maxItems` items. */
export function BatchRequestOf<T extends TSchema>(item: T, maxItems = DEFAULT_BATCH_MAX_ITEMS) {
  return Type.Object(
    {
      batch: Type.Array(item, {
        minItems: 1,
        maxItems,
        description: 'The items, each exactly the body of the single request; answered in the same order.',
      }),
    },
    { additionalProperties: false },
  );
}

/** One answer of a batch: the single answer's `data`, or the single answer's problem as `error`. */
export function BatchEntryOf<T extends TSchema>(data: T) {
  return Type.Union([
    Type.Object({ data }, { additionalProperties: false }),
    Type.Object({ error: BatchProblem }, { additionalProperties: false }),
  ]);
}

/** `{ data: [entry, …] }`, one entry per item, in order. */
export function BatchResponseOf<T extends TSchema>(data: T) {
  return Type.Object({ data: Type.Array(BatchEntryOf(data)) }, { additionalProperties: false });
}

/** The request body of a batch of `Item`s. */
export interface BatchRequest<Item> {
  batch: Item[];
}

/** One entry of a batch answer whose single answers carry `Data`. */
export type BatchEntry<Data> = { data: Data } | { error: Problem };

/** The answer to a batch whose single answers carry `Data`. */
export interface BatchResponse<Data> {
  data: BatchEntry<Data>[];
}

export type BatchProblem = Static<typeof BatchProblem>;
