/** Two projects: fast unit tests beside the code, and integration tests against real nats-server and PostgreSQL. */
const transform = {
  '^.+\\.ts$': [
    '@swc/jest',
    {
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: false },
        target: 'es2022',
      },
      module: { type: 'commonjs' },
    },
  ],
};

module.exports = {
  // Integration tests start daemons and wait for the stream; unit tests finish far below this.
  testTimeout: 120000,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      transform,
      testMatch: [
        '<rootDir>/{contracts,runtime,storage,pipeline,webhook-worker,query-api,mcp,scripts,tracker}/**/*.test.ts',
      ],
      testPathIgnorePatterns: ['\\.int\\.test\\.ts$', '/node_modules/'],
    },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      transform,
      testMatch: ['<rootDir>/test/integration/**/*.int.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
