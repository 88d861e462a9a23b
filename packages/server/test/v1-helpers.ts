/** Shared by the /v1 tests: the deprecation headers, problem assertions, and key fixtures. */
import assert from 'node:assert/strict';
import * as openpgp from 'openpgp';
import type { postJson } from './helpers.ts';

export type Response = Awaited<ReturnType<typeof postJson>>;

/** The documented /v1 deprecation header values, which are also the defaults of V1_DEPRECATION_DATE and V1_SUNSET_DATE. */
export const DEFAULT_V1_HEADERS = {
  deprecation: '@1767225600',
  sunset: 'Fri, 01 Jan 2027 00:00:00 GMT',
  link: '</v2>; rel="successor-version"',
} as const;

export function assertDeprecated(
  response: Response,
  label = '',
  expected: Record<'deprecation' | 'sunset' | 'link', string> = DEFAULT_V1_HEADERS,
): void {
  const where = `${label} (${response.statusCode})`;
  assert.equal(response.headers.deprecation, expected.deprecation, `Deprecation on ${where}`);
  assert.equal(response.headers.sunset, expected.sunset, `Sunset on ${where}`);
  assert.equal(response.headers.link, expected.link, `Link on ${where}`);
}

export function assertNotDeprecated(response: Response, label = ''): void {
  for (const name of ['deprecation', 'sunset', 'link']) {
    assert.equal(response.headers[name], undefined, `${name} must not be on ${label} (${response.statusCode})`);
  }
}

/** A problem+json response with this status and code; returns the body. */
export function assertProblem(
  response: Response,
  status: number,
  code: string,
  label = '',
): { detail: string; code: string; errors?: { field: string; message: string }[]; [key: string]: unknown } {
  assert.equal(response.statusCode, status, `${label}: ${response.body}`);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/, label);
  const body = response.json();
  assert.equal(body.status, status, label);
  assert.equal(body.code, code, `${label}: ${body.detail}`);
  assert.equal(body.error, body.detail, label);
  return body;
}

/** A key made directly with OpenPGP.js in the test, for shapes that /v1/generate does not make. */
export async function makeKey(
  options: Partial<Parameters<typeof openpgp.generateKey>[0]> = {},
): Promise<{ privateKey: string; publicKey: string }> {
  const { privateKey, publicKey } = await openpgp.generateKey({
    userIDs: [{ name: 'Fixture', email: 'fixture@example.com' }],
    type: 'ecc',
    curve: 'curve25519Legacy',
    ...options,
    format: 'armored',
  } as Parameters<typeof openpgp.generateKey>[0] & { format: 'armored' });
  return { privateKey, publicKey };
}
