// ESLint flat config: the recommended JavaScript and TypeScript rules, plus the project's own
// invariants that used to be checked by tests grepping the source.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import wrappedNodeCrypto from './scripts/eslint/wrapped-node-crypto.js';

// node:crypto calls that take keys go through core's one wrapper, so that keys reach OpenSSL as
// KeyObjects and failures lose their stack traces in one place.
const WRAPPED_NODE_CRYPTO = [
  'createHmac',
  'createCipheriv',
  'createDecipheriv',
  'hkdfSync',
  'createPublicKey',
  'createPrivateKey',
  'sign',
  'verify',
  'createSign',
  'createVerify',
];

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '.ci/runtimes/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2024, sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // A variable that a closure reads before its one assignment stays `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      'no-console': 'off',
    },
  },
  {
    // Tests read JSON bodies whose shape is what they assert.
    files: ['**/test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['packages/core/src/**/*.ts'],
    ignores: ['packages/core/src/node-crypto.ts'],
    plugins: { local: { rules: { 'wrapped-node-crypto': wrappedNodeCrypto } } },
    rules: {
      'local/wrapped-node-crypto': ['error', { names: WRAPPED_NODE_CRYPTO }],
    },
  },
  {
    files: ['packages/server/src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "Property[key.name='logSerializers']",
          message: "a route's own log serializers would bypass the redaction of credential headers",
        },
        {
          selector: 'Literal[value=/%[joO]/], TemplateElement[value.raw=/%[joO]/]',
          message: 'objects interpolated with %j, %o or %O bypass the log serializers and their redaction',
        },
      ],
    },
  },
);
