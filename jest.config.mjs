// Jest runs the TypeScript sources as native ES modules (jose, http-proxy-middleware
// and the Prisma client are ESM-only), transformed by SWC.
const swc = ['@swc/jest', {
  jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
  module: { type: 'es6' },
}];

const common = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  setupFilesAfterEnv: ['<rootDir>/tests/support/test-timeout.ts'],
};

// Jest ignores a project's own `testTimeout` (only the global one is read), so each project
// carries its timeout as a global that tests/support/test-timeout.ts applies.
const timeout = (ms) => ({ globals: { FLOE_TEST_TIMEOUT_MS: ms } });

// The e2e files that cross services and share state across processes (rate limits and lock-outs,
// revocation and rotation, sinks, the commit race, device login, scheduled jobs), run again by the
// e2e-replicas project against a stack with two processes of every deployable (docs/testing.md).
const REPLICA_SUITES = [
  'wrong-secret-limits', 'api-keys', 'control-plane-warehouse-actions', 'sink-send', 'sink-roll',
  'catalog-commits', 'device', 'metering-sweep-ticks',
].map((name) => `<rootDir>/tests/e2e/${name}.test.ts`);

// Its files are the e2e project's too: the project exists only when named (`--selectProjects
// e2e-replicas`, as scripts/test.ts does), so a run of an e2e file starts one stack, not two.
const replicasSelected = process.argv.some((a) => a.includes('e2e-replicas'));

export default {
  projects: [
    {
      ...common,
      displayName: 'unit',
      // The engine's DuckDB tests take most of 20 s while three test files share two cores.
      ...timeout(60_000),
      testMatch: [
        '<rootDir>/packages/*/src/**/*.test.ts',
        '<rootDir>/services/*/src/**/*.test.ts',
        '<rootDir>/tests/unit/**/*.test.ts',
      ],
    },
    {
      ...common,
      displayName: 'e2e',
      ...timeout(30_000),
      testMatch: ['<rootDir>/tests/e2e/**/*.test.ts'],
      // Replicas' own question (one sweep per period with two workers), a minute of waiting: asked by e2e-replicas only.
      testPathIgnorePatterns: ['/node_modules/', '/tests/e2e/metering-sweep-ticks\\.test\\.ts$'],
      globalSetup: '<rootDir>/tests/e2e/global-setup.ts',
      globalTeardown: '<rootDir>/tests/e2e/global-teardown.ts',
    },
    ...(replicasSelected ? [{
      ...common,
      displayName: 'e2e-replicas',
      ...timeout(30_000),
      testMatch: REPLICA_SUITES,
      globalSetup: '<rootDir>/tests/e2e/global-setup-replicas.ts',
      globalTeardown: '<rootDir>/tests/e2e/global-teardown.ts',
    }] : []),
    {
      // Tests that stop or restart parts of the stack; `npm test` runs them alone, after the rest.
      ...common,
      displayName: 'fault',
      ...timeout(120_000),
      testMatch: ['<rootDir>/tests/fault/**/*.test.ts'],
    },
  ],
};
