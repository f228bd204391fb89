import { startStack } from '../../infra/local/start/stack';

// Another node of this service as a process of its own, so that a test can kill it (SIGKILL) as a
// crash would and start it again on the same tables, queues and ports. Its options come as JSON
// in the first argument; it prints one line `READY <json>` when it serves.
const stack = await startStack(JSON.parse(process.argv[2]));
process.stdout.write(
  `READY ${JSON.stringify({ adminUrl: stack.adminUrl, openPaymentsUrl: stack.openPaymentsUrl, connectorUrl: stack.connectorUrl, env: stack.env })}\n`,
);
process.on('SIGTERM', () => stack.stop().then(() => process.exit(0)));
