/**
 * The V8 flags the server runs with. Every launcher puts them before the entry point: `npm start`,
 * the Dockerfile's CMD (a test keeps both equal to this list), `crypto-service serve`, and the
 * benchmarks. A cluster's workers inherit them, since `node:cluster` forks with the primary's
 * `process.execArgv`. They cannot be set from inside the process: V8 sizes its heap before any
 * module runs, and `--min-semi-space-size` is refused in NODE_OPTIONS.
 *
 * The young generation is fixed at two 16 MiB semi-spaces. Without the flags, V8 sizes it for
 * itself:
 * - Node 24 grows it under load, up to 128 MiB (two 64 MiB semi-spaces) on a 24 GiB machine;
 * - a major collection shrinks it back.
 * With no change in live data, the resident set then swings by tens of MiB. A container's memory
 * limit has to allow for the top of that swing, and a soak cannot tell it from a leak.
 *
 * Two 16 MiB semi-spaces are Node 22's own maximum (a 32 MiB young generation): large enough
 * that the survivors of each scavenge are only the requests in flight, with no loss of throughput
 * against V8's own sizing (docs/performance.md).
 */
export const SERVER_V8_FLAGS: readonly string[] = ['--min-semi-space-size=16', '--max-semi-space-size=16'];
