import { inject } from 'vitest';
import { useServerlessFiles } from '../../infra/local/start/serverless-config';
import { stopFileEmulatorsAfterAll } from './emulators';

// Run before each integration test file (vitest.config.ts): its emulators stop after its tests,
// and its stacks read serverless.yml's files as the run's global setup read them.
stopFileEmulatorsAfterAll();
useServerlessFiles(inject('serverlessFiles'));
