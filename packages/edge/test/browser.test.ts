/**
 * The package as a browser gets it: bundled by esbuild for platform "browser" (a node: import
 * would fail the build) and run in headless Chromium, on a page of the service's origin. The page
 * opens a box the service sealed, verifies the service's signatures, and seals boxes that the
 * service then opens.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { useCryptoService } from '@crypto-service/testing/node-test';
import { launchChromium } from '../../server/test/chromium.ts';
import type * as Edge from '../src/index.ts';

/** The page's global that the IIFE bundle defines. */
type PageGlobals = { edge: typeof Edge; isSecureContext: boolean };

const service = useCryptoService();
const MOUNT = '/__edge-under-test/';

async function bundle(): Promise<string> {
  const result = await build({
    entryPoints: [join(import.meta.dirname, '../src/index.ts')],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    globalName: 'edge',
    target: ['chrome111', 'firefox111', 'safari16.4'],
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

describe('the package bundled for the browser, in headless Chromium', () => {
  let browser: Browser;
  let page: Page;
  before(async () => {
    const script = await bundle();
    browser = await launchChromium();
    page = await browser.newPage();
    await page.route(`${service.url.replace(/\/$/, '')}${MOUNT}**`, (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>edge under test</title>' }),
    );
    await page.goto(`${service.url.replace(/\/$/, '')}${MOUNT}`);
    await page.addScriptTag({ content: script });
  });
  after(async () => {
    await browser?.close();
  });

  test('opens a service-made sealed box, verifies service signatures, seals for the service', async () => {
    const { client, fixtures } = service;
    const x25519 = fixtures.x25519;
    const xWing = fixtures.xWing;
    const served = (await client.sealedboxSeal({ publicKey: x25519.publicKey, plaintext: 'from the service ✓' })).data;
    const servedPq = (await client.sealedboxSealPq({ publicKey: xWing.publicKey, plaintext: 'pq from the service' }))
      .data;
    const message = 'signed by the service';
    const signatures = {
      ed25519: (await client.sign({ algorithm: 'ed25519', privateKey: fixtures.ed25519.privateKey, message })).data
        .signature,
      ecdsa: (await client.sign({ algorithm: 'ecdsa-p256', privateKey: fixtures.ecdsaP256.privateKey, message })).data
        .signature,
      mlDsa: (await client.sign({ algorithm: 'ml-dsa-65', privateKey: fixtures.mlDsa65.privateKey, message })).data
        .signature,
    };
    const { mac } = (await client.mac({ algorithm: 'hmac-sha256', key: fixtures.hmac.key, data: message })).data;
    const input = {
      x25519,
      xWingPublicKey: xWing.publicKey,
      served: served.ciphertext,
      servedPq: servedPq.ciphertext,
      message,
      signatures,
      keys: {
        ed25519: fixtures.ed25519.publicKey,
        ecdsa: fixtures.ecdsaP256.publicKey,
        mlDsa: fixtures.mlDsa65.publicKey,
      },
      aeadKey: fixtures.aead.key,
      hmacKey: fixtures.hmac.key,
      mac,
    };
    type Input = typeof input;
    const results = await page.evaluate(async (input: Input) => {
      const page = globalThis as unknown as PageGlobals;
      const edge = page.edge;
      const verify = (algorithm: 'ed25519' | 'ecdsa-p256' | 'ml-dsa-65', publicKey: string, signature: string) =>
        edge.verify({ algorithm, publicKey, message: input.message, signature }).then((result) => result.valid);
      const flip = (hex: string) => (hex[0] === '0' ? '1' : '0') + hex.slice(1);
      return {
        secureContext: page.isSecureContext,
        opened: await edge.sealedBoxOpen({ privateKey: input.x25519.privateKey, ciphertext: input.served }),
        valid: {
          ed25519: await verify('ed25519', input.keys.ed25519, input.signatures.ed25519),
          ecdsa: await verify('ecdsa-p256', input.keys.ecdsa, input.signatures.ecdsa),
          mlDsa: await verify('ml-dsa-65', input.keys.mlDsa, input.signatures.mlDsa),
        },
        tampered: {
          ed25519: await verify('ed25519', input.keys.ed25519, flip(input.signatures.ed25519)),
          ecdsa: await verify('ecdsa-p256', input.keys.ecdsa, flip(input.signatures.ecdsa)),
          mlDsa: await verify('ml-dsa-65', input.keys.mlDsa, flip(input.signatures.mlDsa)),
        },
        macValid: (
          await edge.hmacVerify({ algorithm: 'hmac-sha256', key: input.hmacKey, data: input.message, mac: input.mac })
        ).valid,
        sealedPq: (await edge.pqSealedBoxSeal({ publicKey: input.xWingPublicKey, plaintext: 'pq from the browser' }))
          .ciphertext,
        sealed: (await edge.sealedBoxSeal({ publicKey: input.x25519.publicKey, plaintext: 'from the browser' }))
          .ciphertext,
        encrypted: (await edge.encrypt({ key: input.aeadKey, plaintext: 'aead from the browser', aad: 'a' }))
          .ciphertext,
        digest: await edge.hash({ algorithm: 'sha3-256', data: 'abc' }),
      };
    }, input);

    assert.equal(results.secureContext, true);
    assert.equal(results.opened, 'from the service ✓');
    assert.deepEqual(results.valid, { ed25519: true, ecdsa: true, mlDsa: true });
    assert.deepEqual(results.tampered, { ed25519: false, ecdsa: false, mlDsa: false });
    assert.equal(results.macValid, true);
    const openedPq = await client.sealedboxOpenPq({ privateKey: xWing.privateKey, ciphertext: results.sealedPq });
    assert.equal(openedPq.data, 'pq from the browser');
    const opened = await client.sealedboxOpen({ privateKey: x25519.privateKey, ciphertext: results.sealed });
    assert.equal(opened.data, 'from the browser');
    const decrypted = await client.decrypt({ key: input.aeadKey, ciphertext: results.encrypted, aad: 'a' });
    assert.equal(decrypted.data, 'aead from the browser');
    assert.equal(results.digest, (await client.hash({ algorithm: 'sha3-256', data: 'abc' })).data.digest);
    // The service-sealed post-quantum box opens in the page too.
    const openedInPage = await page.evaluate(
      (args: { privateKey: string; ciphertext: string }) =>
        (globalThis as unknown as PageGlobals).edge.pqSealedBoxOpen(args),
      { privateKey: xWing.privateKey, ciphertext: servedPq.ciphertext },
    );
    assert.equal(openedInPage, 'pq from the service');
  });
});
