// Runs in a project that installed the packed tarballs: the client against the running service.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import process from 'node:process';
import { CryptoClient } from '@crypto-service/client';

const client = new CryptoClient({ baseUrl: process.argv[2] });

const { data: hash } = await client.hash({ algorithm: 'sha256', data: 'abc' });
assert.equal(hash.digest, createHash('sha256').update('abc').digest('hex'));

const { data: secret } = await client.generateKeyPair({ algorithm: 'xchacha20-poly1305' });
const { data: encrypted } = await client.encrypt({ key: secret.key, plaintext: 'attack at dawn' });
assert.notEqual(encrypted.ciphertext, 'attack at dawn');
const { data: decrypted } = await client.decrypt({ ...encrypted, key: secret.key });
assert.equal(decrypted, 'attack at dawn');

const { data: keys } = await client.generateKeyPair();
const { data: signed } = await client.sign({ privateKey: keys.privateKey, message: 'release' });
const { data: verified } = await client.verify({ ...signed, publicKey: keys.publicKey, message: 'release' });
assert.equal(verified.valid, true);
const { data: forged } = await client.verify({ ...signed, publicKey: keys.publicKey, message: 'forged' });
assert.equal(forged.valid, false);

process.stdout.write(`${JSON.stringify({ digest: hash.digest, decrypted, verified: verified.valid })}\n`);
