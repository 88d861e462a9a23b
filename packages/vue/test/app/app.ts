/**
 * The test app: every composable of the package in a Vue 3 app written with render functions
 * (no template compiler), each showing its state in an <output> that the test reads.
 */
import { createApp, defineComponent, h, ref, watch, type PropType } from 'vue';
import { CryptoApiError, CryptoClient } from '@crypto-service/client';
import { cryptoService, useCrypto, useHash, useSign, useVerify, type CryptoCall } from '@crypto-service/vue';
import type { PageGlobals } from './page.ts';
import { recordingFetch } from './recording-fetch.ts';

const page = globalThis as unknown as PageGlobals;

function describe(error: Error): string {
  return error instanceof CryptoApiError ? `error: ${error.body.error}` : `error: ${error.message}`;
}

const HashDemo = defineComponent({
  props: { message: { type: String, required: true } },
  setup(props) {
    const { run, data, error, loading, reset } = useHash();
    const hashTwice = () => {
      void run({ algorithm: 'sha256', data: 'a stale message' });
      void run({ algorithm: 'sha256', data: props.message });
    };
    return () => {
      const shown = loading.value ? 'loading' : error.value ? describe(error.value) : (data.value?.digest ?? 'idle');
      return h('section', [
        h('button', { id: 'hash', onClick: () => run({ algorithm: 'sha256', data: props.message }) }, 'hash'),
        h('button', { id: 'hash-twice', onClick: hashTwice }, 'hash twice'),
        h('button', { id: 'hash-reset', onClick: reset }, 'reset'),
        h('output', { id: 'hash-state' }, shown),
      ]);
    };
  },
});

const SignDemo = defineComponent({
  props: {
    message: { type: String, required: true },
    privateKey: { type: String, required: true },
    publicKey: { type: String, required: true },
  },
  setup(props) {
    const sign = useSign();
    const verify = useVerify();
    async function signThenVerify() {
      const signed = await sign.run({ privateKey: props.privateKey, message: props.message });
      if (signed !== undefined)
        await verify.run({ publicKey: props.publicKey, message: props.message, signature: signed.signature });
    }
    const signBadKey = () => sign.run({ privateKey: 'not a key', message: props.message });
    return () =>
      h('section', [
        h('button', { id: 'sign', onClick: signThenVerify }, 'sign then verify'),
        h('button', { id: 'sign-bad-key', onClick: signBadKey }, 'sign with a bad key'),
        h(
          'output',
          { id: 'signature' },
          sign.error.value ? describe(sign.error.value) : (sign.data.value?.signature ?? ''),
        ),
        h('output', { id: 'verified' }, verify.data.value === undefined ? '' : String(verify.data.value.valid)),
      ]);
  },
});

type PasswordHashCall = CryptoCall<'passwordHash'>;

/** Hands its call's refs to its parent, which watches them after this component is gone. */
const Leaving = defineComponent({
  props: {
    onLeave: { type: Function as PropType<() => void>, required: true },
    onCall: { type: Function as PropType<(call: PasswordHashCall) => void>, required: true },
  },
  setup(props) {
    const passwordHash = useCrypto('passwordHash');
    props.onCall(passwordHash);
    const runAndLeave = () => {
      page.leftBehind = passwordHash.run({ password: 'correct horse battery staple' });
      props.onLeave();
    };
    return () =>
      h(
        'button',
        { id: 'run-and-leave', onClick: runAndLeave },
        passwordHash.loading.value ? 'hashing' : 'hash a password, then leave',
      );
  },
});

const UnmountDemo = defineComponent({
  setup() {
    const shown = ref(true);
    let call: PasswordHashCall | undefined;
    page.changesAfterLeaving = 0;
    const leave = () => {
      shown.value = false;
      if (call === undefined) return;
      const { data, error, loading } = call;
      // Synchronous, so that every single write to the refs is counted.
      watch([data, error, loading], () => (page.changesAfterLeaving += 1), { flush: 'sync' });
    };
    return () =>
      shown.value
        ? h(Leaving, { onLeave: leave, onCall: (leaving: PasswordHashCall) => (call = leaving) })
        : h('output', { id: 'left' }, 'left');
  },
});

const ProbeDemo = defineComponent({
  setup() {
    const health = useCrypto('health');
    return () =>
      h('section', [
        h('button', { id: 'health', onClick: () => health.run() }, 'health'),
        h('output', { id: 'health-state' }, health.data.value?.status ?? ''),
      ]);
  },
});

page.requests = [];
page.startApp = (config) => {
  const client = new CryptoClient({ baseUrl: config.url, apiKey: config.apiKey, fetch: recordingFetch(page.requests) });
  const App = defineComponent({
    setup: () => () => [
      h(HashDemo, { message: config.message }),
      h(SignDemo, { message: config.message, privateKey: config.privateKey, publicKey: config.publicKey }),
      h(UnmountDemo),
      h(ProbeDemo),
    ],
  });
  createApp(App).use(cryptoService, { client }).mount('#root');
};
