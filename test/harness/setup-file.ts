import './file-key'; // first: before ./emulators reads it
import { stopFileEmulatorsAfterAll } from './emulators';

// Run before each integration test file (vitest.config.ts): its emulators stop after its tests.
// (Its stacks read serverless.yml's files as the run's global setup read them: LOCAL_SERVERLESS_FILES.)
stopFileEmulatorsAfterAll();
