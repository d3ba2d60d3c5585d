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

export default {
  projects: [
    {
      ...common,
      displayName: 'unit',
      ...timeout(20_000),
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
      globalSetup: '<rootDir>/tests/e2e/global-setup.ts',
      globalTeardown: '<rootDir>/tests/e2e/global-teardown.ts',
    },
    {
      // Tests that stop or restart parts of the stack; `npm test` runs them alone, after the rest.
      ...common,
      displayName: 'fault',
      ...timeout(120_000),
      testMatch: ['<rootDir>/tests/fault/**/*.test.ts'],
    },
  ],
};
