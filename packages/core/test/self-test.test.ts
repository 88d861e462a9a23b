/**
 * The start-up known-answer tests (src/self-test.ts): one for every pair of the algorithm
 * registry, all passing on this runtime, and each failing when its published answer is changed.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ALGORITHM_REGISTRY } from '../src/registry.ts';
import { ARGON2_BACKEND } from '../src/password.ts';
import {
  SELF_TESTS,
  SelfTestFailure,
  createSelfTests,
  runSelfTest,
  runSelfTests,
  selfTestIds,
} from '../src/self-test.ts';
import { SELF_TEST_VECTORS } from '../src/self-test-vectors.ts';

/** Every (family, id) pair of the registry, as `family/id`. */
const registryPairs = Object.entries(ALGORITHM_REGISTRY).flatMap(([family, ids]) => ids.map((id) => `${family}/${id}`));

type Vectors = Record<string, Record<string, unknown>>;

/** A copy of the published answers with one field changed in its first character (hex and base64 alike). */
function corrupted(id: string, field: string): Vectors {
  const vectors = SELF_TEST_VECTORS as unknown as Vectors;
  const value = vectors[id]?.[field];
  assert.equal(typeof value, 'string', `${id}.${field}`);
  const text = value as string;
  const changed = (text[0] === '0' ? '1' : '0') + text.slice(1);
  return { ...vectors, [id]: { ...vectors[id], [field]: changed } };
}

describe('the self-test table', () => {
  test('every pair of the registry has a known-answer test, and there is none for anything else', () => {
    assert.ok(registryPairs.length > 80, "the registry lists the service's algorithms");
    const missing = registryPairs.filter((id) => typeof SELF_TESTS[id] !== 'function');
    assert.deepEqual(missing, [], 'registry pairs without a known-answer test');
    assert.deepEqual(Object.keys(SELF_TESTS).sort(), [...registryPairs].sort());
  });

  test('the suite runs every registry pair exactly once', () => {
    const ids = selfTestIds();
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual([...ids].sort(), [...registryPairs].sort());
  });

  test('every published answer belongs to a test of the table', () => {
    for (const id of Object.keys(SELF_TEST_VECTORS)) assert.ok(registryPairs.includes(id), id);
  });

  test('a pair without a test fails rather than passes', async () => {
    const outcome = await runSelfTest('hash/not-an-algorithm', undefined);
    assert.equal(outcome.passed, false);
    assert.match(outcome.error ?? '', /no known-answer test/);
  });
});

describe('on this runtime', () => {
  test(`every known-answer test passes (Node ${process.versions.node})`, async () => {
    const outcomes = await runSelfTests();
    assert.deepEqual(
      outcomes.map((outcome) => outcome.id),
      selfTestIds(),
    );
    const failed = outcomes.filter((outcome) => !outcome.passed).map((outcome) => `${outcome.id}: ${outcome.error}`);
    assert.deepEqual(failed, []);
  });

  test('an override replaces one test: the one that throws fails with its message, the others still pass', async () => {
    const outcomes = await runSelfTests({
      overrides: {
        'signature/ed448': () => {
          throw new Error('forced failure');
        },
      },
    });
    const failed = outcomes.filter((outcome) => !outcome.passed);
    assert.deepEqual(
      failed.map((outcome) => [outcome.id, outcome.error]),
      [['signature/ed448', 'forced failure']],
    );
  });
});

describe('a corrupted expected answer makes that test fail', () => {
  // Every field named expected… holds a published answer. RFC 9106's Argon2id vector has associated
  // data, which only the native backend takes: elsewhere that answer is not checked (self-test.ts).
  const cases = Object.entries(SELF_TEST_VECTORS as unknown as Vectors).flatMap(([id, vector]) =>
    Object.keys(vector)
      .filter((field) => field.startsWith('expected'))
      .filter((field) => field !== 'expectedRfc9106' || ARGON2_BACKEND === 'native')
      .map((field) => ({ id, field })),
  );

  test('every test with published answers has at least one, and the list is complete', () => {
    assert.ok(cases.length >= Object.keys(SELF_TEST_VECTORS).length);
    for (const id of Object.keys(SELF_TEST_VECTORS))
      assert.ok(
        cases.some((entry) => entry.id === id),
        `${id} has no expected… field`,
      );
  });

  for (const { id, field } of cases) {
    test(`${id}: ${field}`, async () => {
      const tests = createSelfTests(corrupted(id, field) as never);
      await assert.rejects(
        async () => tests[id]?.(),
        (error: unknown) => {
          assert.ok(error instanceof SelfTestFailure, `${id} failed with ${String(error)}, not a self-test failure`);
          return true;
        },
      );
    });
  }

  test('only the corrupted one: with signature/ed448 corrupted, every other test still passes', async () => {
    const outcomes = await runSelfTests({
      tests: createSelfTests(corrupted('signature/ed448', 'expectedSignature') as never),
    });
    assert.deepEqual(
      outcomes.filter((outcome) => !outcome.passed).map((outcome) => outcome.id),
      ['signature/ed448'],
    );
  });
});
