import { stopFileEmulatorsAfterAll } from './emulators';

// Run before each integration test file (vitest.config.ts): its emulators stop after its tests.
stopFileEmulatorsAfterAll();
