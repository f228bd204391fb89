import { parentPort, workerData } from 'node:worker_threads';
import { startStack } from '../../infra/local/start/stack';

// Another node of this service on its own thread, so that it has its own settings and modules
// (the Lambda functions read their configuration once per module graph). It answers
// { api, action } by stopping or starting one of its APIs, { trace } with what it recorded of that
// trace, and stops on 'stop'.
const stack = await startStack(workerData);
parentPort!.postMessage({ adminUrl: stack.adminUrl, openPaymentsUrl: stack.openPaymentsUrl, connectorUrl: stack.connectorUrl, env: stack.env });
parentPort!.on('message', async (message) => {
  if (message === 'stop') {
    await stack.stop();
    process.exit(0);
  }
  if (message?.trace) parentPort!.postMessage({ trace: stack.traces?.trace(message.trace) });
  if (message?.api) {
    await stack.apis[message.api][message.action as 'stop' | 'start']();
    parentPort!.postMessage({ done: message });
  }
});
