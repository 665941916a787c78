import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import { OWN_FILES, PURE_FILES, PURE_FORBIDDEN_IMPORTS } from './scripts/testProjects.mjs';

/** Globals that make code impure: the clock, randomness, the DOM and the Node runtime. */
const impureGlobals = [
  'window',
  'document',
  'navigator',
  'localStorage',
  'sessionStorage',
  'indexedDB',
  'fetch',
  'performance',
  'setTimeout',
  'setInterval',
  'requestAnimationFrame',
  'process',
  'Buffer',
  'require',
  '__dirname',
  '__filename',
  'global',
].map((name) => ({ name, message: 'src/core is pure: pass this in from the client, server or CLI.' }));

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'dist-server/',
      'dist-server.part-*/',
      'node_modules/',
      'test-results/',
      'playwright-report/',
      '.arc-studio/',
      '.tmp/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['src/client/**/*.tsx', 'src/client/**/*.ts'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
  {
    // A file a newcomer can read whole, a function (a component) one screen of intent: past 600
    // lines of code or 200 in a function it is split by feature into named parts (modules,
    // sub-components, hooks). Blank lines and comments do not count, so explaining costs nothing.
    // A file that must stay whole says why at its top, beside an eslint-disable of the rule.
    // Tests are exempt: a test's table of cases may be long.
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: ['src/**/*.test.ts', 'src/**/*.test.tsx'],
    rules: {
      'max-lines': ['error', { max: 600, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 200, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // The engine runs unchanged in the browser, on the server, in workers and in the CLI.
    files: ['src/core/**/*.ts'],
    ignores: ['src/core/**/*.test.ts'],
    languageOptions: { globals: {} },
    rules: {
      'no-restricted-globals': ['error', ...impureGlobals],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                'node:*',
                'fs',
                'path',
                'os',
                'crypto',
                'child_process',
                'http',
                'https',
                'url',
                'worker_threads',
              ],
              message: 'src/core must not import Node modules.',
            },
            {
              group: ['react', 'react-dom', 'react-dom/*', '**/client/**', '**/server/**', '**/cli/**'],
              message: 'src/core must not import the browser, server or CLI layers.',
            },
          ],
        },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'Use the seeded PRNG kept in the state.' },
        { object: 'Date', property: 'now', message: 'src/core has no clock: take time as an argument.' },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: "NewExpression[callee.name='Date']", message: 'src/core has no clock: take time as an argument.' },
      ],
    },
  },
  {
    // The `pure` test project shares processes with no hygiene but the files' own: none of its
    // files may reach a socket, a database, a process or a thread (scripts/testProjects.mjs).
    files: PURE_FILES,
    ignores: OWN_FILES,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: PURE_FORBIDDEN_IMPORTS,
              message:
                'A test of the pure project (src/core, src/games, src/client) does no I/O: test this against the server in a file named *.own.test.ts.',
            },
          ],
        },
      ],
    },
  },
);
