/**
 * What every answer must be, whatever was sent: never a 5xx; an error is an RFC 9457 problem
 * (`application/problem+json` with `type`, `title`, `status` equal to the HTTP status, `detail`,
 * `error` the same text, `instance`, and a `code` from the closed set whose status is this one);
 * a success is `application/json` matching the route's 200 schema; no error text repeats a long
 * string of the request (a key, a password, a plaintext). Each fault is a message; none means
 * the answer is right.
 */
import { ERROR_CODES, PROBLEM_CONTENT_TYPE, problemType } from '@crypto-service/protocol';
import { enumStrings, schemaViolations, typeOf } from './json-schema.ts';
import type { FuzzCase } from './cases.ts';
import type { FuzzRoute } from './routes.ts';
import { isStreamCase, streamSuccessFaults } from './multipart.ts';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  /** The body's bytes as received (a streamed binary answer is checked on these). */
  raw?: Buffer;
  /** The response was destroyed before its end: how a streamed answer says it failed midway. */
  aborted?: boolean;
}

const header = (answer: Answer, name: string) => {
  const value = answer.headers[name];
  return Array.isArray(value) ? value.join(', ') : value === undefined ? undefined : String(value);
};

/** Request strings long enough that seeing one in an error text cannot be chance. */
const ECHO_MIN_LENGTH = 12;

/**
 * String values of the request body worth looking for in error texts: all but the `algorithm`
 * fields, whose value is echoed by design when it is a short plain identifier, and the
 * identifiers of the schema's enums (give or take spaces), which an error may list as the
 * allowed values.
 */
export function echoCandidates(body: unknown, identifiers: ReadonlySet<string>, key = ''): string[] {
  if (typeof body === 'string')
    return key === 'algorithm' || body.length < ECHO_MIN_LENGTH || identifiers.has(body.trim()) ? [] : [body];
  if (Array.isArray(body)) return body.flatMap((item) => echoCandidates(item, identifiers, key));
  if (typeof body === 'object' && body !== null)
    return Object.entries(body).flatMap(([name, value]) => echoCandidates(value, identifiers, name));
  return [];
}

const identifiersByRoute = new WeakMap<FuzzRoute, Set<string>>();
function identifiersOf(route: FuzzRoute): Set<string> {
  let identifiers = identifiersByRoute.get(route);
  if (identifiers === undefined) {
    identifiers = route.body === undefined ? new Set() : enumStrings(route.body, route.resolve);
    identifiersByRoute.set(route, identifiers);
  }
  return identifiers;
}

function problemFaults(answer: Answer, route: FuzzRoute, fuzzCase: FuzzCase): string[] {
  const faults: string[] = [];
  const type = header(answer, 'content-type') ?? '';
  if (!type.startsWith(PROBLEM_CONTENT_TYPE))
    faults.push(`content-type is ${JSON.stringify(type)}, not ${PROBLEM_CONTENT_TYPE}`);
  let problem: Record<string, unknown>;
  try {
    problem = JSON.parse(answer.body) as Record<string, unknown>;
  } catch {
    return [...faults, `the error body is not JSON: ${JSON.stringify(answer.body.slice(0, 200))}`];
  }
  if (typeOf(problem) !== 'object') return [...faults, `the error body is ${typeOf(problem)}, not an object`];
  const code = problem.code;
  const known =
    typeof code === 'string' && Object.hasOwn(ERROR_CODES, code)
      ? ERROR_CODES[code as keyof typeof ERROR_CODES]
      : undefined;
  if (known === undefined) {
    faults.push(`code ${JSON.stringify(code)} is not in the closed set`);
  } else {
    if (known.status !== answer.status)
      faults.push(`code ${String(code)} means status ${known.status}, the answer is ${answer.status}`);
    if (problem.title !== known.title)
      faults.push(`title ${JSON.stringify(problem.title)} is not ${JSON.stringify(known.title)}`);
    if (problem.type !== problemType(code as keyof typeof ERROR_CODES))
      faults.push(`type ${JSON.stringify(problem.type)} does not match code ${String(code)}`);
  }
  if (problem.status !== answer.status)
    faults.push(`problem status ${JSON.stringify(problem.status)} is not the HTTP status ${answer.status}`);
  if (typeof problem.detail !== 'string' || problem.detail.length === 0) faults.push('detail is missing');
  if (problem.error !== problem.detail) faults.push('error is not the same text as detail');
  if (typeof problem.instance !== 'string') faults.push('instance is missing');
  const texts = [
    problem.detail,
    ...(Array.isArray(problem.errors)
      ? problem.errors.map((entry) => (entry as Record<string, unknown>)?.message)
      : []),
  ].filter((value): value is string => typeof value === 'string');
  for (const secret of echoCandidates(fuzzCase.body, identifiersOf(route))) {
    if (texts.some((textValue) => textValue.includes(secret)))
      faults.push(`the error text repeats a request value of ${secret.length} characters`);
  }
  return faults;
}

function successFaults(answer: Answer, route: FuzzRoute): string[] {
  const faults: string[] = [];
  const type = header(answer, 'content-type') ?? '';
  if (!type.startsWith('application/json'))
    faults.push(`content-type is ${JSON.stringify(type)}, not application/json`);
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return [...faults, 'the success body is not JSON'];
  }
  if (typeOf(body) !== 'object' || !Object.hasOwn(body as object, 'data'))
    faults.push('the success body has no data member');
  if (route.ok === undefined) faults.push('the route documents no 200 schema');
  else faults.push(...schemaViolations(route.ok, body, route.resolve).map((fault) => `response ${fault}`));
  return faults;
}

/** Codes that say the body itself is malformed: never right for one that satisfies the schema. */
const REFUSALS_OF_A_VALID_BODY: ReadonlySet<string> = new Set([
  'VALIDATION_FAILED',
  'MALFORMED_JSON',
  'UNSUPPORTED_MEDIA_TYPE',
  'PAYLOAD_TOO_LARGE',
]);

function codeOf(answer: Answer): unknown {
  try {
    return (JSON.parse(answer.body) as Record<string, unknown>).code;
  } catch {
    return undefined;
  }
}

function isConnectionLevel(answer: Answer): boolean {
  try {
    return (JSON.parse(answer.body) as Record<string, unknown>).instance === '';
  } catch {
    return false;
  }
}

/** Every way `answer` departs from the documented behaviour for `fuzzCase` on `route`; empty when it is right. */
export function oracleFaults(route: FuzzRoute, fuzzCase: FuzzCase, answer: Answer): string[] {
  const faults: string[] = [];
  if (answer.aborted === true) {
    // Only a stream may be cut, and only when what was sent was not a valid form.
    if (!isStreamCase(fuzzCase) || fuzzCase.valid === true) faults.push('the response was aborted');
    if (fuzzCase.expect !== undefined)
      faults.push(`expected status ${fuzzCase.expect.status}, the response was aborted`);
    return faults;
  }
  if (answer.status >= 500) faults.push(`status ${answer.status}`);
  if (answer.status === 200)
    faults.push(...(isStreamCase(fuzzCase) ? streamSuccessFaults(fuzzCase, answer) : successFaults(answer, route)));
  else if (answer.status >= 400) faults.push(...problemFaults(answer, route, fuzzCase));
  else faults.push(`unexpected status ${answer.status}`);
  const expected = fuzzCase.expect;
  if (expected !== undefined && answer.status !== expected.status)
    faults.push(`expected status ${expected.status}, got ${answer.status}`);
  const code = answer.status === 200 ? undefined : codeOf(answer);
  if (expected?.code !== undefined && answer.status === expected.status && code !== expected.code) {
    faults.push(`expected code ${expected.code}, got ${JSON.stringify(code)}`);
  }
  if (fuzzCase.valid === true && typeof code === 'string' && REFUSALS_OF_A_VALID_BODY.has(code)) {
    faults.push(`a body that satisfies the schema was refused as ${code}`);
  }
  // Every /v1 answer carries Deprecation, except a connection-level refusal (a stalled or
  // unparsable request, answered before any route saw it: its problem has an empty instance).
  if (fuzzCase.url.startsWith('/v1/') && header(answer, 'deprecation') === undefined && !isConnectionLevel(answer)) {
    faults.push('a /v1 answer without the Deprecation header');
  }
  return faults;
}
