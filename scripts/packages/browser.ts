/**
 * The installed client bundled by esbuild for the browser, loaded by headless Chromium from a page
 * of another origin than the service's, so that every call crosses origins (CORS).
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { build } from 'esbuild';
import { launchChromium } from '../../packages/server/test/chromium.ts';

/** Bundles `entry` (in the consumer project) for browsers into one script that sets `globalThis.outside`. */
export async function bundleForBrowser(project: string, entry: string): Promise<string> {
  const result = await build({
    entryPoints: [join(project, entry)],
    absWorkingDir: project,
    bundle: true,
    platform: 'browser',
    format: 'iife',
    globalName: 'outside',
    target: ['es2022'],
    write: false,
    logLevel: 'silent',
  });
  const [file] = result.outputFiles;
  if (file === undefined) throw new Error('esbuild wrote nothing');
  return file.text;
}

/** Serves the page and the bundle, opens it in Chromium, and returns what `outside.run(serviceUrl)` resolves to. */
export async function runInChromium(bundle: string, serviceUrl: string, pagePort: number): Promise<unknown> {
  const server = createServer((request, response) => {
    const isBundle = request.url === '/bundle.js';
    response.writeHead(200, { 'content-type': isBundle ? 'text/javascript' : 'text/html' });
    response.end(
      isBundle ? bundle : '<!doctype html><title>client from its tarball</title><script src="/bundle.js"></script>',
    );
  });
  server.listen(pagePort, '127.0.0.1');
  await once(server, 'listening');
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${pagePort}/`);
    return await page.evaluate(
      (url) => (globalThis as unknown as { outside: { run(url: string): Promise<unknown> } }).outside.run(url),
      serviceUrl,
    );
  } finally {
    await browser.close();
    server.close();
  }
}
