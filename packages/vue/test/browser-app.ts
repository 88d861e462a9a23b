/**
 * A test app in a real browser against the real service: the app bundled by esbuild, served from
 * its own origin, opened in headless Chromium, calling a service started with CORS for that origin.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { build, type BuildOptions, type Plugin } from 'esbuild';
import type { Page } from 'playwright-core';
import { startCryptoService, type CryptoService, type StartOptions } from '@crypto-service/testing';
import { launchChromium } from '../../server/test/chromium.ts';

export interface BrowserApp {
  page: Page;
  service: CryptoService;
  /** Console errors and warnings (but the browser's own line per 4xx response), and uncaught exceptions. */
  problems: string[];
  close(): Promise<void>;
}

const BUILD_OPTIONS = {
  bundle: true,
  platform: 'browser',
  format: 'iife',
  target: ['es2022'],
  conditions: ['crypto-service-source'],
  // Vue's development build, with the compile-time flags its bundler builds expect set.
  define: {
    'process.env.NODE_ENV': '"development"',
    __VUE_OPTIONS_API__: 'true',
    __VUE_PROD_DEVTOOLS__: 'false',
    __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false',
  },
  write: false,
  logLevel: 'silent',
} satisfies BuildOptions;

function onlyOutput(result: { outputFiles: { text: string }[] }): string {
  const [file] = result.outputFiles;
  if (file === undefined) throw new Error('esbuild wrote nothing');
  return file.text;
}

/** Bundles `entry` as a browser gets it: development Vue (runtime only), the workspace packages from their sources. */
export async function bundleApp(entry: string): Promise<string> {
  return onlyOutput(await build({ ...BUILD_OPTIONS, entryPoints: [entry] }));
}

/**
 * Bundles modules that exist only in memory: `main` imports the others as `virtual:<name>`, and
 * every import in them resolves from `resolveDir`. Vue is its full build here, whose compiler
 * turns `template` strings into render functions in the browser.
 */
export async function bundleModules(main: string, modules: Map<string, string>, resolveDir: string): Promise<string> {
  const virtualModules: Plugin = {
    name: 'virtual-modules',
    setup(builder) {
      builder.onResolve({ filter: /^virtual:/ }, (args) => ({ path: args.path.slice(8), namespace: 'virtual' }));
      builder.onLoad({ filter: /.*/, namespace: 'virtual' }, (args) => ({
        contents: modules.get(args.path) ?? '',
        loader: 'ts',
        resolveDir,
      }));
    },
  };
  return onlyOutput(
    await build({
      ...BUILD_OPTIONS,
      stdin: { contents: main, loader: 'ts', resolveDir },
      plugins: [virtualModules],
      alias: { vue: 'vue/dist/vue.esm-bundler.js' },
    }),
  );
}

/** The page and its script; the script is `bundle.text` as it is when the page asks for it. */
async function servePage(bundle: { text: string }): Promise<Server> {
  const server = createServer((request, response) => {
    const isBundle = request.url === '/app.js';
    response.writeHead(200, { 'content-type': isBundle ? 'text/javascript' : 'text/html' });
    response.end(
      isBundle ? bundle.text : '<!doctype html><title>app</title><div id="root"></div><script src="/app.js"></script>',
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

/**
 * Starts the service with CORS for the page's origin (and `env`), then serves the script that
 * `makeBundle(serviceUrl)` returns in a page and opens it.
 */
export async function openBrowserApp(
  makeBundle: (serviceUrl: string) => Promise<string>,
  env: StartOptions['env'] = {},
): Promise<BrowserApp> {
  const bundle = { text: '' };
  const server = await servePage(bundle);
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const service = await startCryptoService({ env: { ...env, CORS_ORIGIN: origin } });
  bundle.text = await makeBundle(service.url);
  const browser = await launchChromium();
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    // The browser logs each error status it receives; the app's error cases cause those on purpose.
    if (message.text().startsWith('Failed to load resource: the server responded with a status of 4')) return;
    if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(`${origin}/`);
  return {
    page,
    service,
    problems,
    async close() {
      await browser.close();
      await service.close();
      server.close();
    },
  };
}
