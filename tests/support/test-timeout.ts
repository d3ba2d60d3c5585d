// Jest reads `testTimeout` only from the top-level (global) configuration: a project's own
// `testTimeout` is silently ignored, so every project ran with the 5 s default. Each project
// names its timeout in `globals.FLOE_TEST_TIMEOUT_MS` and this file applies it.
import { jest } from '@jest/globals';

const ms = Number((globalThis as { FLOE_TEST_TIMEOUT_MS?: number }).FLOE_TEST_TIMEOUT_MS);
if (!Number.isInteger(ms) || ms <= 0) throw new Error('jest project has no globals.FLOE_TEST_TIMEOUT_MS');
jest.setTimeout(ms);
