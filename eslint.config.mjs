// ESLint flat config: type-checked TypeScript rules, module boundaries.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import { builtinModules } from 'node:module';

// Anything that reaches outside the process: every Node built-in (bare names are exact paths, since a
// pattern such as `events` would also match the project's own `./events`), drivers, servers, loggers.
const nodeBuiltins = builtinModules.filter((m) => !m.startsWith('_'));
const ioModules = ['node:*', 'pg', 'pg-*', '@nats-io/*', 'rxjs', 'rxjs/*', 'express', 'pino', 'prom-client'];

// Top-level folders: the apps, and the shared layers they build on.
const apps = ['pipeline', 'query-api', 'webhook-worker', 'mcp', 'tracker', 'scripts', 'test'];
const shared = ['contracts', 'runtime', 'storage'];
const others = (app) => apps.filter((a) => a !== app);

/** Source files under `files` (not their tests) may not import the listed top-level folders or patterns. */
function boundary(files, folders, patterns = [], paths = []) {
  return {
    files,
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths, patterns: [...new Set(folders)].map((d) => `**/${d}/**`).concat(patterns) },
      ],
    },
  };
}

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      '**/dist/**',
      'test/fixtures/**/*.js',
      '.data/**',
      'coverage/**',
      'query-api/src/generated/**',
      '*.js',
      '*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/require-await': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: false }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      curly: ['error', 'multi-line'],
      'no-console': 'error',
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration in app/config.ts only.' },
      ],
    },
  },
  // Module boundaries (docs/architecture.md, Import rules). Tests may cross them: they check how the
  // pieces meet.
  boundary(['contracts/**/*.ts'], [...apps, ...shared.filter((d) => d !== 'contracts')], ioModules, nodeBuiltins),
  boundary(['runtime/**/*.ts'], apps),
  boundary(['storage/**/*.ts'], [...apps, 'runtime']),
  boundary(['pipeline/**/*.ts'], others('pipeline')),
  boundary(['webhook-worker/**/*.ts'], others('webhook-worker')),
  // The query API serves the MCP server at /mcp, so it may import mcp/.
  boundary(
    ['query-api/**/*.ts'],
    others('query-api').filter((d) => d !== 'mcp'),
  ),
  // The MCP server reaches the reports through the public HTTP API only.
  boundary(['mcp/**/*.ts'], [...others('mcp'), 'storage']),
  // The tracker runs in shoppers' browsers: it imports nothing but the event contract.
  boundary(['tracker/**/*.ts'], [...others('tracker'), 'runtime', 'storage']),
  // The dashboard runs in the browser and reads the public API only: of the project, the contracts' types.
  boundary(['dashboard/**/*.ts', 'dashboard/**/*.tsx'], [...apps, 'runtime', 'storage'], ioModules, nodeBuiltins),
  // The batch flow knows ports, never the adapters that implement them.
  boundary(['pipeline/src/stream/**/*.ts'], others('pipeline'), ['**/adapters/**', '**/operations/**', '**/app/**']),
  // Adapters only talk to the outside: the operations, jobs and composition root use them, never the reverse.
  boundary(['pipeline/src/adapters/**/*.ts'], others('pipeline'), ['**/operations/**', '**/jobs/**', '**/app/**']),
  // Services receive their dependencies; only the composition root knows how they are built.
  boundary(
    ['query-api/src/services/**/*.ts'],
    others('query-api').filter((d) => d !== 'mcp'),
    ['**/app/services', '**/app/api', '**/controllers/**'],
  ),
  {
    // Pure domain code: no I/O, no clock, no randomness.
    files: ['pipeline/src/domain/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins,
          patterns: [
            ...ioModules,
            ...others('pipeline').map((d) => `**/${d}/**`),
            '**/adapters/**',
            '**/stream/**',
            '**/operations/**',
            '**/jobs/**',
            '**/app/**',
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'Time comes in as an argument.',
        },
        {
          selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']",
          message: 'Randomness comes in as an argument.',
        },
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'Time comes in as an argument.' },
      ],
    },
  },
  {
    files: ['**/app/config.ts', '**/app/*-config.ts', 'mcp/src/stdio-config.ts', 'runtime/logger.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: ['scripts/**/*.ts', 'test/**/*.ts', 'infra/**/*.ts'],
    rules: { 'no-console': 'off', 'no-restricted-properties': 'off' },
  },
  {
    files: ['**/*.test.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  prettier,
);
