/**
 * The fuzz run: for each route, a fast-check property over generated cases (valid bodies, coherent
 * recipes, field mutations, byte mutations; forms for the multipart routes: multipart.ts) sent to a target (the app through inject, or a real
 * server over HTTP), each answer checked by the oracle; after each route, the server must still
 * be alive and right. Shared by the CI test (inject.test.ts) and the long run (scripts/fuzz.ts).
 */
import fc from 'fast-check';
import http from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { arbitraryFor } from './arbitraries.ts';
import { describeCase, jsonCase, rawCase, validCase, type FuzzCase } from './cases.ts';
import { buildCorpus, type Corpus } from './corpus.ts';
import { FUZZ_STREAM_MAX_BYTES, multipartCases } from './multipart.ts';
import { mutateBytes, mutateFields, type MutationContext } from './mutations.ts';
import { oracleFaults, type Answer } from './oracle.ts';
import { ROUTE_PROFILES, hintsFor, type RouteProfile } from './profiles.ts';
import { fuzzRoutes, type FuzzRoute } from './routes.ts';

export interface FuzzSettings {
  /** `ci`: the test (inject.test.ts); `long`: scripts/fuzz.ts. Only the replay hint differs. */
  mode: 'ci' | 'long';
  seed: number;
  /** Cases per route (before a heavy route's share in cheap mode). */
  runs: number;
  /** CI: cost parameters clamped to cheap values (profiles.ts), heavy routes get fewer runs. */
  cheap: boolean;
  /** Deepest nesting the deep-nesting mutation sends. */
  maxDepth: number;
  /** Shrink steps after a failure. */
  maxShrinks: number;
  /** A case with no answer after this long is a hang. */
  requestTimeoutMs: number;
  /** Only the routes whose path contains this. */
  route?: string | undefined;
  /** fast-check replay path (with the seed of the failing run). */
  path?: string | undefined;
  /** Called with one line per case (status, time, case): FUZZ_TRACE=1, or --verbose. */
  trace?: ((line: string) => void) | undefined;
}

/**
 * The app as the fuzzer sees it: no rate limit to hit (a 429 would hide everything behind it), and
 * a stream limit low enough for the cases over it to stay small.
 */
export const FUZZ_APP_ENV: Readonly<Record<string, string>> = {
  RATE_LIMIT_MAX: '10000000',
  STREAM_MAX_BYTES: String(FUZZ_STREAM_MAX_BYTES),
};

/** The CI defaults; FUZZ_SEED, FUZZ_RUNS, FUZZ_ROUTE and FUZZ_PATH override them. */
export const DEFAULT_SEED = 20250917;
export const CI_RUNS = 24;

export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): FuzzSettings {
  const integer = (name: string, fallback: number) => {
    const value = env[name];
    if (value === undefined || value === '') return fallback;
    if (!/^-?\d+$/.test(value)) throw new Error(`${name} must be an integer (got ${JSON.stringify(value)})`);
    return Number(value);
  };
  return {
    mode: 'ci',
    seed: integer('FUZZ_SEED', DEFAULT_SEED),
    runs: integer('FUZZ_RUNS', CI_RUNS),
    cheap: true,
    maxDepth: 1000,
    maxShrinks: 200,
    requestTimeoutMs: 20_000,
    route: env.FUZZ_ROUTE || undefined,
    path: env.FUZZ_PATH || undefined,
    trace: env.FUZZ_TRACE === '1' ? (line) => process.stderr.write(`${line}\n`) : undefined,
  };
}

// ---------------------------------------------------------------------------------------------
// Targets

export interface Target {
  send(fuzzCase: FuzzCase): Promise<Answer>;
}

/** The body as text, decompressed when the server compressed it (the oracle reads JSON). */
function bodyText(raw: Buffer, encoding: unknown): string {
  switch (encoding) {
    case 'gzip':
      return gunzipSync(raw).toString('utf8');
    case 'br':
      return brotliDecompressSync(raw).toString('utf8');
    case 'deflate':
      return inflateSync(raw).toString('utf8');
    default:
      return raw.toString('utf8');
  }
}

/** What light-my-request says of a response destroyed midway (a stream route's abort). */
const INJECT_ABORT = 'response destroyed before completion';

export function injectTarget(app: FastifyInstance): Target {
  return {
    async send(fuzzCase) {
      let response;
      try {
        response = await app.inject({
          method: fuzzCase.method as 'POST',
          url: fuzzCase.url,
          headers: fuzzCase.headers,
          ...(fuzzCase.payload === undefined ? {} : { payload: fuzzCase.payload }),
        });
      } catch (error) {
        if ((error as Error).message !== INJECT_ABORT) throw error;
        return { status: 0, headers: {}, body: '', aborted: true };
      }
      return {
        status: response.statusCode,
        headers: response.headers,
        body: bodyText(response.rawPayload, response.headers['content-encoding']),
        raw: response.rawPayload,
      };
    },
  };
}

/** Sends each case on its own connection to a listening server, bytes as they are. */
export function httpTarget(baseUrl: string): Target {
  return {
    send(fuzzCase) {
      return new Promise<Answer>((resolve, reject) => {
        const request = http.request(new URL(fuzzCase.url, baseUrl), {
          method: fuzzCase.method,
          headers: {
            ...fuzzCase.headers,
            ...(fuzzCase.payload === undefined ? {} : { 'content-length': String(fuzzCase.payload.byteLength) }),
          },
          agent: false,
        });
        request.once('error', reject);
        request.once('response', (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.once('error', reject);
          response.once('end', () => {
            try {
              const raw = Buffer.concat(chunks);
              resolve({
                status: response.statusCode ?? 0,
                headers: response.headers,
                body: bodyText(raw, response.headers['content-encoding']),
                raw,
              });
            } catch (error) {
              reject(error);
            }
          });
        });
        request.end(fuzzCase.payload);
      });
    },
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms (a hang?): ${what()}`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

// ---------------------------------------------------------------------------------------------
// Statistics

export interface RouteStats {
  cases: number;
  statuses: Map<number, number>;
  kinds: Map<string, number>;
}

export class FuzzStats {
  readonly routes = new Map<string, RouteStats>();

  record(path: string, fuzzCase: FuzzCase, status: number): void {
    let stats = this.routes.get(path);
    if (stats === undefined) {
      stats = { cases: 0, statuses: new Map(), kinds: new Map() };
      this.routes.set(path, stats);
    }
    stats.cases += 1;
    stats.statuses.set(status, (stats.statuses.get(status) ?? 0) + 1);
    const kind = fuzzCase.label.split(/[ (]/, 1)[0] ?? fuzzCase.label;
    stats.kinds.set(kind, (stats.kinds.get(kind) ?? 0) + 1);
  }

  /** How many cases got a 200 (reached the end of the handler), over all routes. */
  get successes(): number {
    return [...this.routes.values()].reduce((sum, stats) => sum + (stats.statuses.get(200) ?? 0), 0);
  }
}

// ---------------------------------------------------------------------------------------------
// Properties

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export interface RouteFuzzer {
  route: FuzzRoute;
  profile: RouteProfile | undefined;
  runs: number;
  cases: fc.Arbitrary<FuzzCase>;
}

/** The arbitrary of cases for a route. */
export function routeFuzzer(route: FuzzRoute, corpus: Corpus, settings: FuzzSettings, bodyLimit: number): RouteFuzzer {
  if (route.form !== undefined)
    return { route, profile: undefined, runs: settings.runs, cases: multipartCases(route.path) };
  if (route.body === undefined)
    throw new Error(`${route.path} has no body schema in the OpenAPI document: it cannot be fuzzed`);
  const profile = ROUTE_PROFILES[route.path];
  const hints = hintsFor(profile, corpus, route.body, route.resolve);
  const cheapen = (body: unknown): unknown => {
    if (!settings.cheap || profile?.cheapen === undefined || !isObject(body)) return body;
    const copy = structuredClone(body);
    profile.cheapen(copy);
    return copy;
  };
  const schemaBodies = arbitraryFor(route.body, { resolve: route.resolve, hints }).map(cheapen);
  const recipes = (profile?.recipes?.(corpus) ?? []).map((recipe) => recipe.map(cheapen));
  const validBodies = recipes.length === 0 ? schemaBodies : fc.oneof(schemaBodies, ...recipes);
  const context: MutationContext = {
    url: route.path,
    resolve: route.resolve,
    bodyLimit,
    lengths: profile?.lengths ?? {},
    maxDepth: settings.maxDepth,
  };
  // A field mutation can drop a cost parameter (so the expensive default would apply): clamp again.
  const recheapen = (fuzzCase: FuzzCase): FuzzCase => {
    if (fuzzCase.body === undefined || !isObject(fuzzCase.body)) return fuzzCase;
    const body = cheapen(fuzzCase.body);
    return body === fuzzCase.body ? fuzzCase : jsonCase(fuzzCase.label, fuzzCase.url, body, fuzzCase.expect);
  };
  const cases = fc.oneof(
    { weight: 2, arbitrary: schemaBodies.map((body) => validCase('valid', route.path, body)) },
    ...(recipes.length === 0
      ? []
      : [{ weight: 2, arbitrary: fc.oneof(...recipes).map((body) => validCase('recipe', route.path, body)) }]),
    { weight: 6, arbitrary: validBodies.chain((body) => mutateFields(body, route.body, context)).map(recheapen) },
    { weight: 2, arbitrary: validBodies.chain((body) => mutateBytes(body, context)) },
  );
  const share = settings.cheap ? (profile?.runShare ?? 1) : 1;
  return { route, profile, runs: Math.max(1, Math.round(settings.runs * share)), cases };
}

export const KNOWN_HASH = {
  body: { algorithm: 'sha256', data: 'abc' },
  // FIPS 180-2, Appendix B.1: SHA-256("abc").
  digest: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
};

/** How long GET /live may take after a fuzz run: generous for a shared 2-core machine, short for a probe. */
export const LIVE_WITHIN_MS = 2000;

/** The server answers /live quickly and still computes a known digest. */
export async function assertAlive(target: Target, after: string): Promise<void> {
  const live = await withTimeout(
    target.send(rawCase('live', '/live', undefined, {}, undefined, 'GET')),
    LIVE_WITHIN_MS,
    () => `GET /live after ${after}`,
  );
  if (live.status !== 200)
    throw new Error(`after ${after}: GET /live answered ${live.status}: ${live.body.slice(0, 200)}`);
  const hash = await withTimeout(
    target.send(jsonCase('known hash', '/v2/hash', KNOWN_HASH.body)),
    5 * LIVE_WITHIN_MS,
    () => `the known hash after ${after}`,
  );
  const digest = hash.status === 200 ? (JSON.parse(hash.body) as { data?: unknown }).data : undefined;
  if (digest !== KNOWN_HASH.digest)
    throw new Error(`after ${after}: SHA-256("abc") answered ${hash.status} ${hash.body.slice(0, 200)}`);
}

/**
 * Waits for GET /ready to answer 200: until the start-up self-tests have run, a request for an
 * algorithm not yet tested is a 503 by design, which the oracle would take for a fault.
 */
export async function waitUntilReady(target: Target, timeoutMs = 60_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const ready = await withTimeout(
      target.send(rawCase('ready', '/ready', undefined, {}, undefined, 'GET')),
      timeoutMs,
      () => 'GET /ready',
    );
    if (ready.status === 200) return;
    if (performance.now() > deadline)
      throw new Error(`the server was not ready within ${timeoutMs} ms: ${ready.status} ${ready.body.slice(0, 300)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export class FuzzFailure extends Error {
  override name = 'FuzzFailure';
}

/**
 * Runs the property of one route. On failure the error says how to replay it: the seed, the
 * fast-check path, the route, and fast-check's own report (the shrunk counterexample).
 */
export async function fuzzRoute(
  fuzzer: RouteFuzzer,
  target: Target,
  settings: FuzzSettings,
  stats: FuzzStats,
): Promise<void> {
  const { route } = fuzzer;
  // Shrinking resends cases, some of a megabyte: bounded, so that a failure is reported in seconds.
  const property = fc.asyncProperty(fc.limitShrink(fuzzer.cases, settings.maxShrinks), async (fuzzCase) => {
    const started = performance.now();
    const answer = await withTimeout(target.send(fuzzCase), settings.requestTimeoutMs, () => describeCase(fuzzCase));
    settings.trace?.(
      `${answer.status} ${(performance.now() - started).toFixed(0).padStart(6)} ms ${describeCase(fuzzCase).slice(0, 300)}`,
    );
    stats.record(route.path, fuzzCase, answer.status);
    const faults = oracleFaults(route, fuzzCase, answer);
    if (faults.length > 0) {
      throw new Error(`${faults.join('; ')}\n  answer: ${answer.status} ${answer.body.slice(0, 500)}`);
    }
  });
  const details = await fc.check(property, {
    seed: settings.seed,
    numRuns: fuzzer.runs,
    ...(settings.path === undefined ? {} : { path: settings.path }),
  });
  if (details.failed) {
    const path = details.counterexamplePath ?? '';
    const replay =
      settings.mode === 'ci'
        ? `FUZZ_SEED=${details.seed} FUZZ_PATH=${path} FUZZ_ROUTE=${route.path} node --test packages/server/test/fuzz/inject.test.ts`
        : `node scripts/fuzz.ts --seed ${details.seed} --runs ${settings.runs} --route ${route.path} --path ${path}`;
    const cause =
      details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    throw new FuzzFailure(
      `fuzzing ${route.path} failed (seed ${details.seed}, path ${path || 'none'})\nreplay: ${replay}\n` +
        `fault: ${cause}\n${fc.defaultReportMessage(details) ?? ''}`,
    );
  }
  await assertAlive(target, `fuzzing ${route.path}`);
}

/** FUZZ_ROUTE (or --route) value that selects the bursts alone. */
export const BURSTS = 'bursts';

/**
 * Cases of random routes sent at once, `burstSize` at most: the queues, the worker pools and the
 * buffers wiped after use must keep every answer right when requests overlap. Within every
 * queue's limit, so no 503 is expected.
 */
export async function fuzzBursts(
  fuzzers: RouteFuzzer[],
  target: Target,
  settings: FuzzSettings,
  stats: FuzzStats,
  bursts: number,
  burstSize = 12,
): Promise<void> {
  const entry = fc.oneof(...fuzzers.map((fuzzer) => fuzzer.cases.map((fuzzCase) => ({ fuzzer, fuzzCase }))));
  const property = fc.asyncProperty(
    fc.limitShrink(fc.array(entry, { minLength: 2, maxLength: burstSize }), settings.maxShrinks),
    async (entries) => {
      const answers = await Promise.all(
        entries.map(({ fuzzCase }) =>
          withTimeout(target.send(fuzzCase), settings.requestTimeoutMs, () => describeCase(fuzzCase)),
        ),
      );
      const faults = entries.flatMap(({ fuzzer, fuzzCase }, index) => {
        const answer = answers[index]!;
        stats.record(fuzzer.route.path, fuzzCase, answer.status);
        return oracleFaults(fuzzer.route, fuzzCase, answer).map(
          (fault) =>
            `${describeCase(fuzzCase).slice(0, 200)}: ${fault}; answer ${answer.status} ${answer.body.slice(0, 200)}`,
        );
      });
      if (faults.length > 0) throw new Error(faults.join('\n'));
    },
  );
  const details = await fc.check(property, {
    seed: settings.seed,
    numRuns: bursts,
    ...(settings.path === undefined ? {} : { path: settings.path }),
  });
  if (details.failed) {
    const path = details.counterexamplePath ?? '';
    const replay =
      settings.mode === 'ci'
        ? `FUZZ_SEED=${details.seed} FUZZ_PATH=${path} FUZZ_ROUTE=${BURSTS} node --test packages/server/test/fuzz/inject.test.ts`
        : `node scripts/fuzz.ts --seed ${details.seed} --runs ${settings.runs} --route ${BURSTS} --path ${path}`;
    const cause =
      details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    throw new FuzzFailure(
      `concurrent bursts failed (seed ${details.seed}, path ${path || 'none'})\nreplay: ${replay}\nfault: ${cause}\n${fc.defaultReportMessage(details) ?? ''}`,
    );
  }
  await assertAlive(target, 'the bursts');
}

/** What a fuzz run through inject needs, set up the same way by the CI test and scripts/fuzz.ts. */
export interface InjectRun {
  target: Target;
  /** Every POST route of the app. */
  all: FuzzRoute[];
  /** The routes that `settings.route` selects (none when it selects the bursts alone). */
  routes: FuzzRoute[];
  /** `settings.route` is `bursts`: no route on its own, the bursts only. */
  onlyBursts: boolean;
  fuzzerFor(route: FuzzRoute): RouteFuzzer;
}

/**
 * Builds the corpus, waits until the app is ready (its self-tests passed) and answers, and selects
 * the routes. `routes` is empty when nothing matches `settings.route`: the caller says so its way.
 */
export async function prepareInjectRun(app: FastifyInstance, settings: FuzzSettings): Promise<InjectRun> {
  const corpus = await buildCorpus();
  const target = injectTarget(app);
  await waitUntilReady(target);
  await assertAlive(target, 'start');
  const all = fuzzRoutes(app);
  const onlyBursts = settings.route === BURSTS;
  const routes = onlyBursts
    ? []
    : all.filter((route) => settings.route === undefined || route.path.includes(settings.route));
  const bodyLimit = app.initialConfig.bodyLimit ?? 1_048_576;
  return { target, all, routes, onlyBursts, fuzzerFor: (route) => routeFuzzer(route, corpus, settings, bodyLimit) };
}
