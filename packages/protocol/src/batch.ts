/**
 * The batch form of a route: `{ "batch": [ body, … ] }`, each item exactly the single request's
 * body, answered with `{ "data": [ entry, … ] }` in the same order, each entry either the single
 * answer's `data` or the problem the single request would have been answered with.
 */
import type { Problem } from './errors.ts';

/** BATCH_MAX_ITEMS when unset: the most items one batch may hold. */
export const DEFAULT_BATCH_MAX_ITEMS = 1000;

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
