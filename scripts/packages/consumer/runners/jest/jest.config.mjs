// A Jest project as an application would write it: one service for the run, from the global setup.
export default {
  globalSetup: './crypto-service.setup.mjs',
  globalTeardown: './crypto-service.teardown.mjs',
  testMatch: ['**/*.test.mjs'],
  transform: {},
};
