/**
 * /metrics and the documentation are no longer a free way to spend the server's CPU: the scrape is
 * rendered at most once a second, both are rate limited, label values cannot be minted from
 * outside, and METRICS_TOKEN guards the scrape when set.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { ScrapeCache } from '../../src/metrics-scrape-cache.ts';
import { scrapeEncoding } from '../../src/plugins/metrics-endpoint.ts';
import { DOCUMENT_RATE_LIMIT_COST } from '../../src/plugins/openapi.ts';
import { postJson, testApp } from '../helpers.ts';

const TOKEN = 'metrics-token-0123456789abcdef';
const scrape = (headers: Record<string, string> = {}) => ({ method: 'GET' as const, url: '/metrics', headers });
const remaining = (header: unknown) => Number(/;r=(\d+)/.exec(String(header))?.[1]);

describe('METRICS_TOKEN', () => {
  test('when set, a scrape needs it as a bearer token', async (t) => {
    const app = await testApp({ METRICS_TOKEN: TOKEN });
    t.after(() => app.close());
    const missing = await app.inject(scrape());
    assert.equal(missing.statusCode, 401);
    assert.equal(missing.headers['www-authenticate'], 'Bearer realm="metrics"');
    assert.match(missing.json().detail, /METRICS_TOKEN/);
    assert.equal(missing.json().code, 'UNAUTHORIZED');
    for (const authorization of [`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, `Basic ${TOKEN}`, TOKEN]) {
      assert.equal((await app.inject(scrape({ authorization }))).statusCode, 401, authorization);
    }
    const allowed = await app.inject(scrape({ authorization: `Bearer ${TOKEN}` }));
    assert.equal(allowed.statusCode, 200);
    assert.match(allowed.body, /^process_cpu_seconds_total /m);
    assert.equal((await app.inject(scrape({ authorization: `bearer   ${TOKEN}` }))).statusCode, 200);
  });

  test('when set, an API key does not open /metrics: only the token does', async (t) => {
    const app = await testApp({ METRICS_TOKEN: TOKEN, CRYPTO_API_KEY: 'api-key-0123456789abcdef0123456789' });
    t.after(() => app.close());
    const response = await app.inject(scrape({ 'x-api-key': 'api-key-0123456789abcdef0123456789' }));
    assert.equal(response.statusCode, 401);
  });

  test('when unset, /metrics is public even where the API needs a credential', async (t) => {
    const app = await testApp({ CRYPTO_API_KEY: 'api-key-0123456789abcdef0123456789' });
    t.after(() => app.close());
    assert.equal((await app.inject(scrape())).statusCode, 200);
  });
});

describe('rate limits of /metrics and the documentation', () => {
  test('/metrics costs a unit like any public route and is refused with 429 past the limit', async (t) => {
    const app = await testApp({ RATE_LIMIT_MAX: '2' });
    t.after(() => app.close());
    const codes = [];
    for (let i = 0; i < 3; i += 1) codes.push((await app.inject(scrape())).statusCode);
    assert.deepEqual(codes, [200, 200, 429]);
    // The probes stay exempt: an orchestrator is never told a healthy process is dead.
    assert.equal((await app.inject({ method: 'GET', url: '/live' })).statusCode, 200);
  });

  test('a refused scrape without the token is counted too', async (t) => {
    const app = await testApp({ RATE_LIMIT_MAX: '2', METRICS_TOKEN: TOKEN });
    t.after(() => app.close());
    const codes = [];
    for (let i = 0; i < 3; i += 1) codes.push((await app.inject(scrape())).statusCode);
    assert.deepEqual(codes, [401, 401, 429]);
  });

  test('the OpenAPI document costs its serialising price; the UI page one unit', async (t) => {
    const app = await testApp({ RATE_LIMIT_MAX: '1000' });
    t.after(() => app.close());
    const first = await app.inject({ method: 'GET', url: '/docs/json' });
    assert.equal(first.statusCode, 200);
    assert.equal(remaining(first.headers.ratelimit), 1000 - DOCUMENT_RATE_LIMIT_COST);
    assert.ok(DOCUMENT_RATE_LIMIT_COST > 1);
    const yaml = await app.inject({ method: 'GET', url: '/docs/yaml' });
    assert.equal(remaining(yaml.headers.ratelimit), 1000 - 2 * DOCUMENT_RATE_LIMIT_COST);
    const page = await app.inject({ method: 'GET', url: '/docs/static/swagger-ui.css' });
    assert.equal(page.statusCode, 200);
    assert.equal(remaining(page.headers.ratelimit), 1000 - 2 * DOCUMENT_RATE_LIMIT_COST - 1);
  });
});

describe('the scrape cache', () => {
  test('METRICS_CACHE_MS=0 renders on every scrape', async (t) => {
    const app = await testApp({ METRICS_CACHE_MS: '0' });
    t.after(() => app.close());
    await app.inject(scrape());
    await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'abc' });
    const next = await app.inject(scrape());
    assert.equal(app.metricsScrapes.renders, 2);
    assert.match(next.body, /route="\/v2\/hash"/);
  });

  test('scrapes within a second share one render; the next second renders again', async (t) => {
    const app = await testApp();
    t.after(() => app.close());
    const first = await app.inject(scrape());
    await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'abc' });
    const burst = await Promise.all(Array.from({ length: 20 }, () => app.inject(scrape())));
    assert.equal(app.metricsScrapes.renders, 1);
    for (const response of burst) assert.equal(response.body, first.body);
    // The hash request counted after the render is not in the cached text.
    assert.doesNotMatch(first.body, /route="\/v2\/hash"/);
    await new Promise((resolve) => setTimeout(resolve, 1050));
    const later = await app.inject(scrape());
    assert.equal(app.metricsScrapes.renders, 2);
    assert.match(later.body, /route="\/v2\/hash"/);
  });

  test('concurrent callers wait for the render under way; a failed render is not kept', async () => {
    let clock = 0;
    let renders = 0;
    let fail = false;
    let release: () => void = () => {};
    const cache = new ScrapeCache(
      async () => {
        renders += 1;
        await new Promise<void>((resolve) => (release = resolve));
        if (fail) throw new Error('collect failed');
        return { contentType: 'text/plain', body: `render ${renders}` };
      },
      1000,
      () => clock,
    );
    const waiting = [cache.get(), cache.get(), cache.get()];
    release();
    assert.deepEqual(
      (await Promise.all(waiting)).map((exposition) => exposition.body),
      ['render 1', 'render 1', 'render 1'],
    );
    clock = 999;
    assert.equal((await cache.get()).body, 'render 1');
    clock = 1000;
    fail = true;
    const failed = cache.get();
    release();
    await assert.rejects(failed, /collect failed/);
    fail = false;
    const retried = cache.get();
    release();
    assert.equal((await retried).body, 'render 3');
    assert.equal(cache.renders, 3);
  });
});

describe('compressed scrapes', () => {
  test('brotli or gzip as accepted, compressed once per render, decoding to the same text', async (t) => {
    const app = await testApp();
    t.after(() => app.close());
    const plain = await app.inject(scrape());
    assert.equal(plain.headers['content-encoding'], undefined);
    const br = await app.inject(scrape({ 'accept-encoding': 'gzip, deflate, br' }));
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers.vary, 'accept-encoding');
    assert.equal(brotliDecompressSync(br.rawPayload).toString(), plain.body);
    const brAgain = await app.inject(scrape({ 'accept-encoding': 'br' }));
    assert.ok(brAgain.rawPayload.equals(br.rawPayload));
    const gzip = await app.inject(scrape({ 'accept-encoding': 'gzip' }));
    assert.equal(gzip.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(gzip.rawPayload).toString(), plain.body);
    assert.equal(app.metricsScrapes.renders, 1);
  });

  test('the encoding follows the q values', () => {
    assert.equal(scrapeEncoding(undefined), undefined);
    assert.equal(scrapeEncoding('identity'), undefined);
    assert.equal(scrapeEncoding('br;q=0, gzip;q=0.5'), 'gzip');
    assert.equal(scrapeEncoding('BR;q=0.1'), 'br');
    assert.equal(scrapeEncoding('x-gzip'), 'gzip');
    assert.equal(scrapeEncoding('deflate'), undefined);
  });
});

describe('label cardinality', () => {
  test('unknown paths and unusual methods fold into a bounded set of series', async (t) => {
    const app = await testApp();
    t.after(() => app.close());
    const methods = [
      'PROPFIND',
      'MKCOL',
      'LOCK',
      'UNLOCK',
      'COPY',
      'MOVE',
      'SEARCH',
      'PURGE',
      'REPORT',
      'GET',
      'TRACE',
    ];
    for (const method of methods) {
      for (let i = 0; i < 5; i += 1) {
        await app.inject({ method: method as 'GET', url: `/minted-${method}-${i}` });
      }
    }
    const text = (await app.inject(scrape())).body;
    const series = text.split('\n').filter((line) => line.startsWith('http_requests_total{'));
    const unmatched = series.filter((line) => line.includes('route="unmatched"'));
    const labelledMethods = new Set(unmatched.map((line) => /method="([^"]+)"/.exec(line)?.[1]));
    assert.deepEqual([...labelledMethods].sort(), ['GET', 'other']);
    assert.doesNotMatch(text, /minted-|PROPFIND|MKCOL/);
  });
});
