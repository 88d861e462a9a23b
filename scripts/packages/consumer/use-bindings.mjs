// Runs in a project that installed the packed tarballs: the Prisma, TypeORM, React and Vue
// packages load from their builds with their peers; Vue's composable calls the running service
// (URL in argv), React's provider and hook render on the server.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import process from 'node:process';
import { createElement } from 'react';
import { renderToString as renderReact } from 'react-dom/server';
import { createSSRApp, effectScope, h } from 'vue';
import { renderToString as renderVue } from 'vue/server-renderer';
import { CryptoClient } from '@crypto-service/client';
import * as prisma from '@crypto-service/prisma';
import * as typeorm from '@crypto-service/typeorm';
import { CryptoProvider, useCrypto as useReactCrypto, useCryptoClient } from '@crypto-service/react';
import { cryptoService, useCrypto as useVueCrypto } from '@crypto-service/vue';

const [baseUrl] = process.argv.slice(2);
const client = new CryptoClient({ baseUrl });
const results = {};

// Prisma and TypeORM write one stored format: the same associated data for the same row.
const location = { model: 'User', field: 'email', primaryKey: prisma.formatPrimaryKey([7, 'fr']) };
assert.equal(typeof prisma.fieldEncryption, 'function');
assert.equal(typeof typeorm.typeormFieldEncryption, 'function');
results.orm = {
  prisma: prisma.associatedData(location),
  typeorm: typeorm.associatedData({ ...location, primaryKey: typeorm.formatPrimaryKey([7, 'fr']) }),
};

// React: the provider hands the client to the hook's component.
function Probe() {
  const hash = useReactCrypto('hash');
  return createElement('p', null, `${useCryptoClient() === client} ${hash.loading}`);
}
results.react = renderReact(createElement(CryptoProvider, { client }, createElement(Probe)));

// Vue: the plugin provides the client; the composable calls the service.
const app = createSSRApp({ render: () => h('p', 'ready') }).use(cryptoService, { client });
const scope = effectScope();
const hash = app.runWithContext(() => scope.run(() => useVueCrypto('hash')));
const digest = (await hash.run({ algorithm: 'sha256', data: 'vue' }))?.digest;
scope.stop();
results.vue = { rendered: await renderVue(app), digest };
assert.equal(digest, createHash('sha256').update('vue').digest('hex'));

process.stdout.write(`${JSON.stringify(results)}\n`);
