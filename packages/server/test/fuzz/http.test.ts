/**
 * The part of the fuzz suite that needs real sockets: the server process (src/server.ts) on a
 * loopback port, requests written byte for byte (wire.ts). Content-Length that disagrees with the
 * body, bodies the client cuts short, chunked framing valid and broken, pipelining, header syntax
 * Node refuses, invalid UTF-8 in the URL and the body, clients that stall. Every response is
 * checked by the same oracle as the inject suite; afterwards the process must still be running,
 * answer /live and hash correctly, and have logged no error.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { arbitraryFor } from './arbitraries.ts';
import { serialize } from './cases.ts';
import { KNOWN_HASH, assertAlive, httpTarget, settingsFromEnv, waitUntilReady } from './harness.ts';
import { resolverFor, type JsonSchema } from './json-schema.ts';
import { oracleFaults } from './oracle.ts';
import type { FuzzRoute } from './routes.ts';
import { sendWire, type WireCase } from './wire.ts';
import { startServer, type StartedServer } from '../e2e/helpers.ts';

/** Short socket timeouts, so that the stalling clients get their 408 within the test's budget. */
const SERVER_ENV = {
  RATE_LIMIT_MAX: '10000000',
  HEADERS_TIMEOUT_MS: '800',
  REQUEST_TIMEOUT_MS: '1200',
  KEEP_ALIVE_TIMEOUT_MS: '1000',
};

/** Cheap routes with different body shapes: required fields, all-optional fields, /v1. */
const PATHS = ['/v2/hash', '/v2/encrypt', '/v2/pq/hybrid/keygen', '/v1/verify'] as const;

/** Cases per run; FUZZ_RUNS scales it like the inject suite. */
const WIRE_RUNS_SHARE = 2.5;

const CRLF = '\r\n';

function head(path: string, headers: [string, string][], requestLine = `POST ${path} HTTP/1.1`): string {
  return `${requestLine}${CRLF}host: 127.0.0.1${CRLF}${headers.map(([name, value]) => `${name}: ${value}${CRLF}`).join('')}${CRLF}`;
}

const framed = (path: string, body: Buffer, extra: [string, string][] = [], length = body.byteLength) =>
  Buffer.concat([
    Buffer.from(
      head(path, [
        ['content-type', 'application/json'],
        ['content-length', String(length)],
        ['connection', 'close'],
        ...extra,
      ]),
      'latin1',
    ),
    body,
  ]);

function chunked(
  path: string,
  body: Buffer,
  cuts: number[],
  sizeLine: (size: number) => string = (size) => size.toString(16),
  terminator = `0${CRLF}${CRLF}`,
): Buffer {
  const points = [...new Set([0, ...cuts.map((cut) => cut % (body.byteLength + 1)), body.byteLength])].sort(
    (a, b) => a - b,
  );
  const parts: Buffer[] = [
    Buffer.from(
      head(path, [
        ['content-type', 'application/json'],
        ['transfer-encoding', 'chunked'],
        ['connection', 'close'],
      ]),
      'latin1',
    ),
  ];
  for (let index = 1; index < points.length; index++) {
    const piece = body.subarray(points[index - 1], points[index]);
    if (piece.byteLength > 0)
      parts.push(Buffer.from(`${sizeLine(piece.byteLength)}${CRLF}`, 'latin1'), piece, Buffer.from(CRLF, 'latin1'));
  }
  parts.push(Buffer.from(terminator, 'latin1'));
  return Buffer.concat(parts);
}

const INVALID_UTF8 = [[0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0x80], [0xe2, 0x82]];

/** Ways to frame (or break the framing of) one request carrying `body` to `path`. */
function wireCases(path: string, body: Buffer): fc.Arbitrary<WireCase> {
  // No FIN after a complete request: Node aborts in-flight requests when the client half-closes
  // (httpAllowHalfOpen is false), so a slow route would be answered by a closed socket. A FIN is
  // sent where the point is a client that stops mid-body.
  const wire = (label: string, bytes: Buffer, options: Partial<WireCase> = {}): WireCase => ({
    label,
    bytes,
    halfClose: false,
    path,
    ...options,
  });
  const quotes = [...body.toString('latin1').matchAll(/"/g)].map((match) => (match.index ?? 0) + 1);
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc
        .integer({ min: -body.byteLength, max: 64 })
        .filter((delta) => delta !== 0)
        .map((delta) =>
          // Longer than sent: the client's FIN cuts the body short. Shorter: the rest reads as a second request.
          wire(`content-length ${delta > 0 ? '+' : ''}${delta}`, framed(path, body, [], body.byteLength + delta), {
            halfClose: delta > 0,
            mayCloseSilently: delta > 0,
          }),
        ),
    },
    {
      weight: 3,
      arbitrary: fc
        .tuple(fc.constantFrom(...INVALID_UTF8), fc.constantFrom(...(quotes.length > 0 ? quotes : [0])))
        .map(([bad, at]) => {
          const broken = Buffer.concat([body.subarray(0, at), Buffer.from(bad), body.subarray(at)]);
          return wire('invalid utf-8 in the body', framed(path, broken), { expectStatus: 400 });
        }),
    },
    {
      weight: 2,
      arbitrary: fc
        .integer({ min: 0, max: Math.max(0, body.byteLength - 1) })
        .map((cut) => wire(`body cut at ${cut}`, framed(path, body.subarray(0, cut)), { expectStatus: 400 })),
    },
    {
      weight: 2,
      arbitrary: fc.array(fc.nat(), { maxLength: 6 }).map((cuts) => wire('chunked', chunked(path, body, cuts))),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.array(fc.nat(), { maxLength: 3 }),
          fc.constantFrom<[string, (size: number) => string, string]>(
            ['bad size', () => 'zz', `0${CRLF}${CRLF}`],
            ['negative size', (size) => `-${size}`, `0${CRLF}${CRLF}`],
            ['huge size', () => 'ffffffffffffffffff', `0${CRLF}${CRLF}`],
            ['size too small', (size) => Math.max(0, size - 1).toString(16), `0${CRLF}${CRLF}`],
            ['chunk extension', (size) => `${size.toString(16)};name=value`, `0${CRLF}${CRLF}`],
            ['no last chunk', (size) => size.toString(16), ''],
            ['trailer', (size) => size.toString(16), `0${CRLF}x-trailer: 1${CRLF}${CRLF}`],
          ),
        )
        .map(([cuts, [label, sizeLine, terminator]]) =>
          wire(`chunked, ${label}`, chunked(path, body, cuts, sizeLine, terminator), {
            halfClose: true,
            mayCloseSilently: true,
          }),
        ),
    },
    {
      weight: 3,
      arbitrary: fc
        .constantFrom<[string, [string, string][]]>(
          ['two content-lengths', [['content-length', String(body.byteLength + 1)]]],
          ['content-length and chunked', [['transfer-encoding', 'chunked']]],
          ['transfer-encoding gzip', [['transfer-encoding', 'gzip']]],
          ['expect 100-continue', [['expect', '100-continue']]],
          ['expect something else', [['expect', 'teapot']]],
          ['header with NUL', [['x-fuzz', 'a\u0000b']]],
          ['latin-1 header', [['x-fuzz', '\u00ff\u00fe']]],
          ['space before colon', [['x-fuzz ', 'a']]],
          ['folded header', [['x-fuzz', `a${CRLF} folded`]]],
          ['content-type with NUL', [['content-type', 'application/json\u0000']]],
        )
        .map(([label, extra]) => wire(label, framed(path, body, extra))),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(
          ['HTTP/1.0', `POST ${path} HTTP/1.0`],
          ['absolute-form URL', `POST http://127.0.0.1${path} HTTP/1.1`],
          ['HTTP/2 preface', 'PRI * HTTP/2.0'],
          ['lowercase method', `post ${path} HTTP/1.1`],
          ['unknown version', `POST ${path} HTTP/9.9`],
          ['no version', `POST ${path}`],
          ['long URL', `POST ${path}?${'a'.repeat(20_000)} HTTP/1.1`],
          ['raw bytes in the URL', `POST ${path}\u00ff\u00fe HTTP/1.1`],
          ['tab in the URL', `POST ${path}\tx HTTP/1.1`],
        )
        .map(([label, requestLine]) =>
          wire(
            label,
            Buffer.concat([
              Buffer.from(
                head(
                  path,
                  [
                    ['content-type', 'application/json'],
                    ['content-length', String(body.byteLength)],
                    ['connection', 'close'],
                  ],
                  requestLine,
                ),
                'latin1',
              ),
              body,
            ]),
            { mayCloseSilently: true },
          ),
        ),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom('garbage', 'second request').map((second) => {
        const first = Buffer.concat([
          Buffer.from(
            head(path, [
              ['content-type', 'application/json'],
              ['content-length', String(body.byteLength)],
            ]),
            'latin1',
          ),
          body,
        ]);
        const next = second === 'garbage' ? Buffer.from(`NOT HTTP${CRLF}${CRLF}`, 'latin1') : framed(path, body);
        return wire(`pipelined, then ${second}`, Buffer.concat([first, next]));
      }),
    },
    // A client that stops sending: the server must answer 408 (or hang up) after its timeouts.
    {
      weight: 1,
      arbitrary: fc.constantFrom('headers', 'body').map((where) =>
        where === 'headers'
          ? wire(
              'stalls in the headers',
              Buffer.from(`POST ${path} HTTP/1.1${CRLF}host: 127.0.0.1${CRLF}content-ty`, 'latin1'),
              { halfClose: false, mayCloseSilently: true },
            )
          : wire('stalls in the body', framed(path, body.subarray(0, body.byteLength >> 1), [], body.byteLength), {
              halfClose: false,
              expectStatus: 408,
            }),
      ),
    },
  );
}

describe('real sockets', () => {
  let server: StartedServer;
  before(async () => {
    server = await startServer(SERVER_ENV);
    await waitUntilReady(httpTarget(server.baseUrl));
  });
  after(() => server.kill());

  test('regression: an Expect other than 100-continue is ignored, not a bare 417', async () => {
    const body = Buffer.from(JSON.stringify(KNOWN_HASH.body));
    const result = await sendWire(
      server.port,
      { label: 'expect', bytes: framed('/v2/hash', body, [['expect', 'teapot']]), halfClose: false, path: '/v2/hash' },
      10_000,
    );
    assert.equal(result.responses.length, 1);
    const [answer] = result.responses;
    assert.equal(answer!.status, 200, answer!.body);
    assert.equal((JSON.parse(answer!.body) as { data: string }).data, KNOWN_HASH.digest);
    // The pipeline ran: the security headers are there.
    assert.equal(answer!.headers['cache-control'], 'no-store');
  });

  test('regression: a /v1 answer to an absolute-form request target carries the deprecation headers', async () => {
    // Found by the fuzzer: `POST http://127.0.0.1/v1/verify HTTP/1.1` reached the /v1 route, but
    // the deprecation hook looked for a raw URL starting with /v1 and sent none.
    const body = Buffer.from(JSON.stringify({ message: 'text', publicKeys: 'not a key' }));
    const bytes = Buffer.concat([
      Buffer.from(
        head(
          '/v1/verify',
          [
            ['content-type', 'application/json'],
            ['content-length', String(body.byteLength)],
            ['connection', 'close'],
          ],
          `POST http://127.0.0.1/v1/verify HTTP/1.1`,
        ),
        'latin1',
      ),
      body,
    ]);
    const result = await sendWire(
      server.port,
      { label: 'absolute-form', bytes, halfClose: false, path: '/v1/verify' },
      10_000,
    );
    assert.equal(result.responses.length, 1);
    const [answer] = result.responses;
    assert.equal(answer!.status, 400, answer!.body);
    assert.match(answer!.headers.deprecation as string, /^@\d+$/);
    assert.ok(answer!.headers.sunset, 'no Sunset header');
    assert.equal(answer!.headers.link, '</v2>; rel="successor-version"');
  });

  test('fuzz over real sockets: framing, raw bytes and stalls on a running server', async (t) => {
    const settings = settingsFromEnv();
    const target = httpTarget(server.baseUrl);
    await assertAlive(target, 'start');

    // The routes' schemas as the server publishes them.
    const document = JSON.parse(
      (await target.send({ label: 'docs', method: 'GET', url: '/docs/json', headers: {}, payload: undefined })).body,
    ) as {
      paths: Record<
        string,
        {
          post?: {
            requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
            responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
          };
        }
      >;
      components?: { schemas?: Record<string, JsonSchema> };
    };
    const resolve = resolverFor(document.components?.schemas);
    const routes = new Map<string, FuzzRoute>(
      PATHS.map((path) => {
        const operation = document.paths[path]?.post;
        const route = {
          path,
          body: operation?.requestBody?.content?.['application/json']?.schema,
          form: undefined,
          ok: operation?.responses?.['200']?.content?.['application/json']?.schema,
          okOctets: false,
          resolve,
        };
        assert.ok(route.body !== undefined, `${path} is not in /docs/json`);
        return [path, route];
      }),
    );

    const cases = fc.constantFrom(...PATHS).chain((path) => {
      const route = routes.get(path)!;
      return arbitraryFor(route.body!, { resolve }).chain((body) =>
        wireCases(path, Buffer.from(serialize(body), 'utf8')),
      );
    });
    const labels = new Map<string, number>();
    const property = fc.asyncProperty(fc.limitShrink(cases, settings.maxShrinks), async (wireCase) => {
      const kind = wireCase.label.split(/ [-+\d]/, 1)[0]!;
      labels.set(kind, (labels.get(kind) ?? 0) + 1);
      const result = await sendWire(server.port, wireCase, 10_000);
      const faults: string[] = [];
      if (result.error !== undefined) faults.push(result.error);
      if (result.responses.length === 0 && wireCase.mayCloseSilently !== true)
        faults.push('the connection closed without a response');
      if (result.leftover.byteLength > 0)
        faults.push(`a torn response: ${JSON.stringify(result.leftover.subarray(0, 200).toString('latin1'))}`);
      const first = result.responses[0];
      if (first !== undefined && wireCase.expectStatus !== undefined && first.status !== wireCase.expectStatus)
        faults.push(`expected ${wireCase.expectStatus}, got ${first.status}`);
      const route = routes.get(wireCase.path)!;
      for (const answer of result.responses) {
        faults.push(
          ...oracleFaults(
            route,
            { label: wireCase.label, method: 'POST', url: wireCase.path, headers: {}, payload: undefined },
            answer,
          ),
        );
      }
      if (faults.length > 0) {
        throw new Error(
          `${faults.join('; ')}\n  sent: ${JSON.stringify(wireCase.bytes.subarray(0, 300).toString('latin1'))}\n  got: ${result.responses.map((answer) => `${answer.status} ${answer.body.slice(0, 200)}`).join(' | ')}`,
        );
      }
    });
    const details = await fc.check(property, {
      seed: settings.seed,
      numRuns: Math.round(settings.runs * WIRE_RUNS_SHARE),
      ...(settings.path === undefined ? {} : { path: settings.path }),
    });
    if (details.failed) {
      const cause =
        details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
      assert.fail(
        `wire fuzzing failed (seed ${details.seed}, path ${details.counterexamplePath})\n` +
          `replay: FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath} node --test packages/server/test/fuzz/http.test.ts\nfault: ${cause}\n${fc.defaultReportMessage(details) ?? ''}`,
      );
    }
    t.diagnostic(`wire cases: ${[...labels.entries()].map(([label, count]) => `${label} ${count}`).join(', ')}`);

    await assertAlive(target, 'the wire cases');
    assert.equal(server.hasExited, false, 'the server process exited');
    const errors = server.logs().filter((line) => line.level >= 50);
    assert.deepEqual(
      errors.map((line) => line.msg),
      [],
      'the server logged errors',
    );
  });
});
