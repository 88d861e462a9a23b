/**
 * Makes Node settle how it keeps async context as the server's modules start to run, before the
 * process has run enough code for V8 to optimize the functions every callback goes through.
 *
 * Node 24 keeps the context of AsyncLocalStorage in "frames" (`--async-context-frame`, on by
 * default) and decides so lazily: until something first asks, its internal `AsyncContextFrame`
 * class inherits do-nothing methods, and the first question swaps the class's prototype for the
 * working one. Nothing in the server asks until Fastify and its plugins are loaded and running, by
 * when `process.nextTick`, `processTicksAndRejections` and the do-nothing `exchange` and `current`
 * can have been compiled with what they saw before the swap; the optimized code built from that
 * stale feedback goes through V8's generic property-load handler on every tick, for the life of the
 * process. The benchmarks' bare baseline does the same, so that their ratios compare request
 * pipelines, not start-up order.
 *
 * Two things ask here, both public: the ES import of `node:async_hooks` below (Node's ES facade of
 * a built-in module reads every export, the `AsyncLocalStorage` getter among them, when the module
 * graph starts to evaluate, so the entry point imports this module first), and the call, which
 * reads the getter itself and so does not depend on how this module is loaded. On Node 22, where
 * frames are off by default, both only load the implementation that would have been loaded anyway.
 * Earlier still would be a `--require` preload, before Node's ES module loader runs: not done, since
 * every launcher would have to carry it.
 */
import asyncHooks from 'node:async_hooks';

/** Settles Node's async-context implementation; the entry point calls it before anything else. */
export function settleAsyncContext(): void {
  if (typeof asyncHooks.AsyncLocalStorage !== 'function') throw new Error('node:async_hooks has no AsyncLocalStorage');
}
