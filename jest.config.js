/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  globalSetup: '<rootDir>/test/global-setup.ts',
  // Two cores: two test files at a time, each with its own worker and task queue on one Temporal server.
  maxWorkers: 2,
  testTimeout: 30000,
  verbose: true,
};
