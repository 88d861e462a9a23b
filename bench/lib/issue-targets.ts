/**
 * Issue 7's targets, the thresholds every script that reports on them compares with (load.ts,
 * live-under-load.ts, soak.ts) and targets.ts judges by, kept in one place.
 */

/** One production process serves small SHA-256 requests at no less than this × a bare Fastify. */
export const ONE_PROCESS_MIN_RATIO = 0.8;
/** The cluster size of the second target, and how many × one bare process it must serve. */
export const TARGET_WORKERS = 2;
export const WORKERS_MIN_RATIO = 1.3;
/** /live p99 stays under this (ms) while heavy work saturates every core. */
export const LIVE_P99_MAX_MS = 20;
/** Resident memory grows less than this (%) over the soak. */
export const SOAK_MAX_GROWTH_PERCENT = 10;
