import { parentPort, workerData } from 'node:worker_threads';
import { threadId } from '../infra/local/emulators/lambda';
import { loadService } from '../infra/local/start/serverless-config';
import { startStack } from '../infra/local/start/stack';

// The service under test, on its own thread, so that the load client does not share its event loop;
// its functions on a thread of their own, apart from the local stand-ins (gateways, pollers, SQS and
// EventBridge emulators) on this one, so that the bench reads each one's CPU apart. It answers
// 'stats' with the AWS calls and storage work each function has made so far, { publishedAt: ids }
// with when those events were put on the bus, and stops on 'stop'.
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const stack = await startStack({ ...workerData, functionsThread: true, usage: true, jit: 'full' });
// What triggers each function (http, sqs, stream, schedule), for the modelled bill.
const triggers = Object.fromEntries(loadService('local').functions.map((fn) => [fn.name, Object.keys(fn.events[0] ?? {})[0] ?? 'http']));
parentPort!.postMessage({
  adminUrl: stack.adminUrl,
  openPaymentsUrl: stack.openPaymentsUrl,
  connectorUrl: stack.connectorUrl,
  env: stack.env,
  endpoints: stack.endpoints,
  triggers,
  processes: { jvm: stack.processes.dynamodb, standIns: threadId(), functions: await stack.processes.functionsThread() },
});
parentPort!.on('message', async (message) => {
  if (message === 'stats') parentPort!.postMessage({ stats: stack.stats() });
  if (message?.publishedAt) parentPort!.postMessage({ published: message.publishedAt.map((id: string) => stack.publishedAt(id)) });
  if (message === 'stop') {
    await stack.stop();
    process.exit(0);
  }
});
