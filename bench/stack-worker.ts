import { parentPort, workerData } from 'node:worker_threads';
import { startStack } from '../infra/local/stack';

// The service under test, on its own thread, so that the load client does not share its event loop.
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const stack = await startStack(workerData);
parentPort!.postMessage({ adminUrl: stack.adminUrl, openPaymentsUrl: stack.openPaymentsUrl, env: stack.env, endpoints: stack.endpoints });
parentPort!.on('message', async (message) => {
  if (message === 'stop') {
    await stack.stop();
    process.exit(0);
  }
});
