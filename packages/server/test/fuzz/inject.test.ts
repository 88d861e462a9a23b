/**
 * The fuzz suite, CI size: every POST /v1 and /v2 route of the app (read from its own route table
 * and OpenAPI document), FUZZ_RUNS cases each (default CI_RUNS; heavy routes a share of it, with
 * their cost parameters clamped cheap: profiles.ts), through inject; then bursts of cases of
 * random routes sent at once. Seeded: FUZZ_SEED (default DEFAULT_SEED). A failure prints the
 * seed, the fast-check path and the command that replays it (FUZZ_SEED, FUZZ_PATH and FUZZ_ROUTE,
 * a route or `bursts`); FUZZ_TRACE=1 prints every case with its status and time.
 * The long run is scripts/fuzz.ts; the raw-socket part is http.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp } from '../helpers.ts';
import { FUZZ_APP_ENV, FuzzStats, fuzzBursts, fuzzRoute, prepareInjectRun, settingsFromEnv } from './harness.ts';

test('fuzz: every POST /v1 and /v2 route through inject', async (t) => {
  const settings = settingsFromEnv();
  const app = await testApp(FUZZ_APP_ENV);
  t.after(() => app.close());
  const { target, all, routes, onlyBursts, fuzzerFor } = await prepareInjectRun(app, settings);
  assert.ok(onlyBursts || routes.length > 0, `no route matches FUZZ_ROUTE=${settings.route}`);
  const stats = new FuzzStats();
  for (const route of routes) {
    await t.test(route.path, () => fuzzRoute(fuzzerFor(route), target, settings, stats));
  }
  if (settings.route === undefined || onlyBursts) {
    const fuzzers = all.map(fuzzerFor);
    await t.test('concurrent bursts', () =>
      fuzzBursts(fuzzers, target, settings, stats, Math.max(1, Math.round(settings.runs / 3))),
    );
  }
  t.diagnostic(
    `seed ${settings.seed}, ${[...stats.routes.values()].reduce((sum, route) => sum + route.cases, 0)} cases, ${stats.successes} answered 200`,
  );
  if (settings.route === undefined && settings.path === undefined) {
    // The fuzzer must reach the crypto code, not only bounce off validation: most routes answer 200 to some case.
    const reached = [...stats.routes.entries()]
      .filter(([, route]) => (route.statuses.get(200) ?? 0) > 0)
      .map(([path]) => path);
    assert.ok(
      reached.length >= routes.length * 0.75,
      `only ${reached.length} of ${routes.length} routes answered 200 to any case: ${routes
        .map((route) => route.path)
        .filter((path) => !reached.includes(path))
        .join(', ')} never did`,
    );
  }
});
