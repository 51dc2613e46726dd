const transform = {
  '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
};

/** @type {import('jest').Config} */
module.exports = {
  // Two cores: two test files at a time, each with its own worker and task queue on one Temporal server.
  maxWorkers: 2,
  // A worker whose heap stays above this after a file is replaced before the next: files that send 20 MiB bodies
  // (bank statements at their limit) and start whole stacks of their own otherwise leave a worker to run out of
  // memory several files later.
  workerIdleMemoryLimit: '1GB',
  verbose: true,
  // Integration tests register workspaces and wait for workflows. A file's first registration waits for its
  // fresh worker and, on two shared cores, for whatever else runs: it took over 30 s under load. These tests
  // check behaviour, never timing (benchmarks measure that), so the bound is there only to end a hang.
  testTimeout: 60000,
  projects: [
    {
      // No PostgreSQL, no shared Temporal server: `npm run test:unit` runs these alone. Workflow tests
      // (test/unit/workflows) start a Temporal dev server of their own from the pinned CLI.
      displayName: 'unit',
      testEnvironment: 'node',
      roots: ['<rootDir>/test/unit'],
      testMatch: ['**/*.test.ts'],
      transform: {
        ...transform,
        // The console's browser modules (ES modules, served as they are), for the money rules' shared vectors.
        '^.+/api/web/static/app/.+\\.js$': ['@swc/jest', { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
      },
    },
    {
      // The real app, a real worker, real PostgreSQL and a real Temporal dev server (started by `npm test`).
      displayName: 'integration',
      testEnvironment: 'node',
      roots: ['<rootDir>/test/integration'],
      testMatch: ['**/*.test.ts'],
      transform,
      globalSetup: '<rootDir>/test/global-setup.ts',
    },
    {
      // The service as several processes behind nginx and PgBouncer (scripts/start-cluster.sh starts them):
      // `npm test` runs it after the other projects, alone, so its load does not slow their timing.
      displayName: 'cluster',
      testEnvironment: 'node',
      roots: ['<rootDir>/test/cluster'],
      testMatch: ['**/*.test.ts'],
      transform,
    },
  ],
};
