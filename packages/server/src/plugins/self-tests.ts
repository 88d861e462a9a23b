/**
 * Start-up known-answer self-tests (FIPS 140-3 style; the tests are core's self-test.ts).
 *
 * - The suite starts once the app is ready (onReady), without delaying it: the server listens at
 *   once and `/live` answers while the tests run. Tests run one after another, yielding to the
 *   event loop between two, so that requests keep being served meanwhile.
 * - While it runs, `/ready` is 503 with its `self-tests` check failing. When it has finished,
 *   `/ready` turns 200 even if some algorithm failed (one broken algorithm must not take every
 *   replica out of service) and lists the failed ones as `disabled`.
 * - A request that depends on a failed algorithm is a 503 SERVICE_UNAVAILABLE problem naming it;
 *   one that depends on an algorithm not yet tested is a 503 with Retry-After. Which algorithms a
 *   request depends on is the table in ../self-test-dependencies.ts, checked in a preHandler hook (after
 *   the body is validated). Nothing else is held back: `/v1`, the probes and `/docs` never wait.
 * - `/metrics`: `crypto_self_test_passed{algorithm="family/id"}` 1 or 0 for every test that has
 *   run, and `crypto_self_test_duration_seconds`, the suite's time (0 until it has finished).
 * - The log: one error line per failed algorithm and one summary line when the suite finishes.
 *
 * Results of core's built-in tests are kept for the process: a test checks the code loaded in the
 * process, which does not change, so a second app in the same process (tests build many) takes
 * them as they are instead of running the suite again. Tests replace individual tests through
 * `overrides` (AppOptions.selfTests), which always run for their app.
 */
import fp from 'fastify-plugin';
import { Gauge } from 'prom-client';
import { SELF_TESTS, runSelfTest, selfTestIds, type SelfTest, type SelfTestOutcome } from '@crypto-service/core';
import { ApiError } from '../errors.ts';
import { selfTestsOfRequest } from '../self-test-dependencies.ts';
import { declareRouteConfigCache, routeConfigOf } from '../route-config.ts';

export interface SelfTestPluginOptions {
  /** Tests replace individual known-answer tests (to make one fail, say), by `family/id`. */
  overrides?: Record<string, () => void | Promise<void>>;
}

export type SelfTestStatus = 'pending' | 'passed' | 'failed';

/** What the app knows of its self-tests: `app.selfTests`. */
export interface SelfTestState {
  /** Resolves when every test has an outcome (never rejects). */
  readonly done: Promise<void>;
  readonly completed: boolean;
  status(id: string): SelfTestStatus;
  /** The failed `family/id` pairs, sorted: the algorithms out of service. */
  disabled(): string[];
  /** The suite's wall-clock time, once completed. */
  readonly durationSeconds: number | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    selfTests: SelfTestState;
  }
}

/** Retry-After while the suite runs: it takes well under a second natively, a few on Node 22. */
const RETRY_AFTER_SECONDS = 1;

// The built-in tests' outcomes in this process: started once, settled ones also kept by value so
// that a later app can take them synchronously, before its first request.
const processRuns = new Map<string, Promise<SelfTestOutcome>>();
const processOutcomes = new Map<string, SelfTestOutcome>();

function builtIn(id: string): Promise<SelfTestOutcome> {
  let run = processRuns.get(id);
  if (run === undefined) {
    run = runSelfTest(id, SELF_TESTS[id]).then((outcome) => {
      processOutcomes.set(id, outcome);
      return outcome;
    });
    processRuns.set(id, run);
  }
  return run;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** `'ed448' (signature/ed448)`: the identifier the client sent, and the test it depends on. */
function describeAlgorithm(id: string): string {
  return `'${id.slice(id.indexOf('/') + 1)}' (${id})`;
}

export default fp<SelfTestPluginOptions>(
  async function selfTests(app, options) {
    const overrides: Readonly<Record<string, SelfTest>> = options.overrides ?? {};
    const ids = selfTestIds();
    const known = new Set(ids);
    const outcomes = new Map<string, SelfTestOutcome>();
    let completed = false;
    let closed = false;
    let durationSeconds: number | undefined;
    let finish: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });

    const state: SelfTestState = {
      done,
      get completed() {
        return completed;
      },
      status(id) {
        const outcome = outcomes.get(id);
        if (outcome === undefined) return 'pending';
        return outcome.passed ? 'passed' : 'failed';
      },
      disabled() {
        return [...outcomes.values()]
          .filter((outcome) => !outcome.passed)
          .map((outcome) => outcome.id)
          .sort();
      },
      get durationSeconds() {
        return durationSeconds;
      },
    };
    app.decorate('selfTests', state);
    declareRouteConfigCache(app);
    app.readiness.addCheck('self-tests', () => completed);
    app.readiness.setDisabledAlgorithms(() => state.disabled());

    const record = (outcome: SelfTestOutcome) => {
      outcomes.set(outcome.id, outcome);
      if (!outcome.passed)
        app.log.error(
          { algorithm: outcome.id, reason: outcome.error },
          'start-up self-test failed: algorithm disabled',
        );
    };

    async function runSuite(): Promise<void> {
      const started = performance.now();
      const overridden = (id: string) => Object.hasOwn(overrides, id);
      // Outcomes this process already has are taken at once, before the first request can arrive.
      for (const id of ids) {
        const outcome = processOutcomes.get(id);
        if (!overridden(id) && outcome !== undefined) record(outcome);
      }
      for (const id of ids) {
        if (closed) return;
        if (outcomes.has(id)) continue;
        record(overridden(id) ? await runSelfTest(id, overrides[id]) : await builtIn(id));
        await nextTurn();
      }
      durationSeconds = (performance.now() - started) / 1000;
      completed = true;
      const failed = state.disabled();
      app.log.info(
        {
          selfTests: {
            passed: ids.length - failed.length,
            failed: failed.length,
            disabled: failed,
            durationMs: Math.round(durationSeconds * 1000),
          },
        },
        `start-up self-tests: ${ids.length - failed.length} of ${ids.length} algorithms passed in ${Math.round(durationSeconds * 1000)} ms${failed.length > 0 ? `; disabled: ${failed.join(', ')}` : ''}`,
      );
    }

    app.addHook('onReady', async () => {
      // Not awaited: readiness (and listening) must not wait for the suite; /ready reports it.
      runSuite()
        .catch((error: unknown) => app.log.error({ err: error }, 'start-up self-tests stopped unexpectedly'))
        .finally(finish);
    });
    app.addHook('onClose', async () => {
      closed = true;
    });

    // Once the suite has finished with every algorithm passed (the usual state), no request can be
    // held back: the hook answers at once, without looking at the route or the body.
    let allPassed = false;
    void done.then(() => {
      allPassed = completed && state.disabled().length === 0;
    });
    app.addHook('preHandler', (request, _reply, next) => {
      if (allPassed) return next();
      const needed = selfTestsOfRequest(routeConfigOf(request).url, request.body).filter((id) => known.has(id));
      const failed = needed.find((id) => state.status(id) === 'failed');
      if (failed !== undefined) {
        return next(
          new ApiError(
            'SERVICE_UNAVAILABLE',
            `algorithm ${describeAlgorithm(failed)} is disabled: its start-up self-test failed`,
          ),
        );
      }
      const pending = needed.find((id) => state.status(id) === 'pending');
      if (pending !== undefined) {
        return next(
          new ApiError(
            'SERVICE_UNAVAILABLE',
            `algorithm ${describeAlgorithm(pending)} is not available yet: the start-up self-tests are still running`,
            { headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } },
          ),
        );
      }
      return next();
    });

    if (app.hasDecorator('metricsRegistry')) {
      new Gauge({
        name: 'crypto_self_test_passed',
        help: 'Start-up known-answer test by algorithm (family/id): 1 passed, 0 failed (the algorithm is disabled); absent until it has run',
        labelNames: ['algorithm'] as const,
        // Across cluster workers: 0 if any worker has the algorithm disabled.
        aggregator: 'min',
        registers: [app.metricsRegistry],
        collect() {
          this.reset();
          for (const outcome of outcomes.values()) this.set({ algorithm: outcome.id }, outcome.passed ? 1 : 0);
        },
      });
      new Gauge({
        name: 'crypto_self_test_duration_seconds',
        help: 'Wall-clock time of the start-up self-test suite; 0 until it has finished',
        aggregator: 'max',
        registers: [app.metricsRegistry],
        collect() {
          this.reset();
          if (durationSeconds !== undefined) this.set(durationSeconds);
        },
      });
    }
  },
  { name: 'self-tests' },
);
