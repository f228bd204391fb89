import { randomBytes } from 'node:crypto';

// This test file's access key, set before any module reads LOCAL_CREDENTIALS
// (infra/local/emulators/emulators.ts), and inherited by every process the file starts: its
// DynamoDB Local, leased from the run's pool, keeps a database for each key (./dynamodb-pool.ts).
process.env.LOCAL_ACCESS_KEY_ID = `file${randomBytes(8).toString('hex')}`;
