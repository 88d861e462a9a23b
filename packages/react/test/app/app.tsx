/**
 * The test app: every hook of the package in a React 19 tree (under StrictMode, which mounts each
 * component twice), each showing its state in an <output> that the test reads.
 */
import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { CryptoApiError, CryptoClient } from '@crypto-service/client';
import { CryptoProvider, useCrypto, useHash, useSign, useVerify } from '@crypto-service/react';
import type { PageGlobals } from './page.ts';
import { recordingFetch } from './recording-fetch.ts';

const testWindow = window as unknown as PageGlobals;

function describe(error: Error): string {
  return error instanceof CryptoApiError ? `error: ${error.body.error}` : `error: ${error.message}`;
}

function HashDemo({ message }: { message: string }) {
  const hash = useHash();
  const shown = hash.loading ? 'loading' : hash.error ? describe(hash.error) : (hash.data?.digest ?? 'idle');
  return (
    <section>
      <button id="hash" onClick={() => void hash.run({ algorithm: 'sha256', data: message })}>
        hash
      </button>
      <button
        id="hash-twice"
        onClick={() => {
          void hash.run({ algorithm: 'sha256', data: 'a stale message' });
          void hash.run({ algorithm: 'sha256', data: message });
        }}
      >
        hash twice
      </button>
      <button id="hash-reset" onClick={hash.reset}>
        reset
      </button>
      <output id="hash-state">{shown}</output>
    </section>
  );
}

function SignDemo({ message, privateKey, publicKey }: { message: string; privateKey: string; publicKey: string }) {
  const sign = useSign();
  const verify = useVerify();
  async function signThenVerify() {
    const signed = await sign.run({ privateKey, message });
    if (signed !== undefined) await verify.run({ publicKey, message, signature: signed.signature });
  }
  return (
    <section>
      <button id="sign" onClick={() => void signThenVerify()}>
        sign then verify
      </button>
      <button id="sign-bad-key" onClick={() => void sign.run({ privateKey: 'not a key', message })}>
        sign with a bad key
      </button>
      <output id="signature">{sign.error ? describe(sign.error) : (sign.data?.signature ?? '')}</output>
      <output id="verified">{verify.data === undefined ? '' : String(verify.data.valid)}</output>
    </section>
  );
}

function Leaving({ onLeave }: { onLeave: () => void }) {
  const passwordHash = useCrypto('passwordHash');
  return (
    <button
      id="run-and-leave"
      onClick={() => {
        testWindow.leftBehind = passwordHash.run({ password: 'correct horse battery staple' });
        onLeave();
      }}
    >
      {passwordHash.loading ? 'hashing' : 'hash a password, then leave'}
    </button>
  );
}

function UnmountDemo() {
  const [shown, setShown] = useState(true);
  return shown ? <Leaving onLeave={() => setShown(false)} /> : <output id="left">left</output>;
}

function ProbeDemo() {
  const health = useCrypto('health');
  return (
    <section>
      <button id="health" onClick={() => void health.run()}>
        health
      </button>
      <output id="health-state">{health.data?.status ?? ''}</output>
    </section>
  );
}

testWindow.requests = [];
testWindow.startApp = (config) => {
  const client = new CryptoClient({
    baseUrl: config.url,
    apiKey: config.apiKey,
    fetch: recordingFetch(testWindow.requests),
  });
  const root = document.getElementById('root');
  if (root === null) throw new Error('the page has no #root');
  createRoot(root).render(
    <StrictMode>
      <CryptoProvider client={client}>
        <HashDemo message={config.message} />
        <SignDemo message={config.message} privateKey={config.privateKey} publicKey={config.publicKey} />
        <UnmountDemo />
        <ProbeDemo />
      </CryptoProvider>
    </StrictMode>,
  );
};
