import { parentPort, workerData } from 'node:worker_threads';
import { startStack } from '../infra/local/start/stack';

// The service under test, on its own thread, so that the load client does not share its event loop.
// It answers 'stats' with the AWS calls each function has made so far, { publishedAt: ids } with
// when those events were put on the bus, and stops on 'stop'.
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const stack = await startStack(workerData);
parentPort!.postMessage({
  adminUrl: stack.adminUrl,
  openPaymentsUrl: stack.openPaymentsUrl,
  connectorUrl: stack.connectorUrl,
  env: stack.env,
  endpoints: stack.endpoints,
});
parentPort!.on('message', async (message) => {
  if (message === 'stats') parentPort!.postMessage({ stats: stack.stats() });
  if (message?.publishedAt) parentPort!.postMessage({ published: message.publishedAt.map((id: string) => stack.publishedAt(id)) });
  if (message === 'stop') {
    await stack.stop();
    process.exit(0);
  }
});
