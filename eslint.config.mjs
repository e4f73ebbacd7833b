// ESLint flat config: type-checked TypeScript rules, module boundaries.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

const ioModules = [
  'pg',
  'pg-*',
  '@nats-io/*',
  'rxjs',
  'rxjs/*',
  'node:*',
  'fs',
  'http',
  'https',
  'net',
  'child_process',
  'express',
  'pino',
  'prom-client',
];

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
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
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
  {
    // contracts/ is shared by the apps and depends on nothing of theirs; the apps never import each other,
    // except the query API, which serves the MCP server at /mcp and may import mcp/.
    files: ['contracts/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['**/pipeline/**', '**/query-api/**', '**/mcp/**', ...ioModules] },
      ],
    },
  },
  {
    files: ['pipeline/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['**/query-api/**', '**/mcp/**'] }] },
  },
  { files: ['query-api/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: ['**/pipeline/**'] }] } },
  {
    // The MCP server reaches the reports through the public HTTP API only.
    files: ['mcp/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['**/query-api/**', '**/pipeline/**'] }] },
  },
  {
    // Pure domain code: no I/O, no clock, no randomness.
    files: ['pipeline/src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [...ioModules, '**/query-api/**', '**/mcp/**'] }],
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
