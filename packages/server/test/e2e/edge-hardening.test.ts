/**
 * What only a real server process shows: Node's own answers to Host-less requests, connections
 * per address, and configuration errors at start.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { once } from 'node:events';
import { delay, request, runServerToExit, startServer } from './helpers.ts';

/** Sends `raw` on a new connection and resolves with everything the server wrote back. */
async function rawExchange(port: number, raw: string): Promise<string> {
  const socket = net.connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let answer = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
  socket.write(raw);
  await Promise.race([once(socket, 'close'), delay(3000)]);
  socket.destroy();
  return answer;
}

test('an HTTP/1.1 request without Host is a problem with the security headers, not a bare 400', async (t) => {
  const server = await startServer();
  t.after(() => server.kill());
  const answer = await rawExchange(server.port, 'GET /live HTTP/1.1\r\nConnection: close\r\n\r\n');
  assert.match(answer, /^HTTP\/1\.1 400 /);
  assert.match(answer, /^content-type: application\/problem\+json/im);
  assert.match(answer, /^x-content-type-options: nosniff/im);
  assert.match(answer, /"code":"VALIDATION_FAILED"/);
  assert.match(answer, /Host header/);
  // HTTP/1.0 never had to send Host.
  assert.match(await rawExchange(server.port, 'GET /live HTTP/1.0\r\n\r\n'), /^HTTP\/1\.1 200 /);
});

test('MAX_CONNECTIONS_PER_IP closes the connections one address opens past the cap', async (t) => {
  const server = await startServer({ MAX_CONNECTIONS_PER_IP: '4' });
  t.after(() => server.kill());
  const sockets = await Promise.all(
    Array.from({ length: 7 }, async () => {
      const socket = net.connect(server.port, '127.0.0.1');
      socket.on('error', () => {});
      await once(socket, 'connect');
      return socket;
    }),
  );
  t.after(() => sockets.forEach((socket) => socket.destroy()));
  await delay(300);
  const open = sockets.filter((socket) => !socket.destroyed && socket.readyState === 'open');
  assert.equal(open.length, 4);
  await server.waitForLog((line) => line.msg.includes('MAX_CONNECTIONS_PER_IP reached'));
  // Closing one frees a place for the next.
  open[0]!.destroy();
  await delay(200);
  assert.equal((await request(`${server.baseUrl}/live`)).status, 200);
});

test('without MAX_CONNECTIONS_PER_IP one address may open more connections', async (t) => {
  const server = await startServer();
  t.after(() => server.kill());
  const sockets = await Promise.all(
    Array.from({ length: 7 }, async () => {
      const socket = net.connect(server.port, '127.0.0.1');
      await once(socket, 'connect');
      return socket;
    }),
  );
  t.after(() => sockets.forEach((socket) => socket.destroy()));
  await delay(300);
  assert.equal(sockets.filter((socket) => !socket.destroyed).length, 7);
});

test('configuration errors stop the start with the variable named, never a library message', async () => {
  const cases: [Record<string, string>, RegExp][] = [
    [
      { TRUSTED_PROXY_CIDRS: '0.0.0.0/0' },
      /configuration error: TRUSTED_PROXY_CIDRS: "0\.0\.0\.0\/0" trusts every address/,
    ],
    [{ NODE_ENV: 'production', CRYPTO_API_KEY: 'abcde' }, /configuration error: CRYPTO_API_KEY: .*ALLOW_WEAK_API_KEY/],
  ];
  for (const [env, pattern] of cases) {
    const result = await runServerToExit(env);
    assert.equal(result.code, 1, JSON.stringify(env));
    assert.match(result.stderr, pattern);
    assert.doesNotMatch(result.stderr, /invalid range on address/);
  }
});
