import { parentPort } from 'node:worker_threads';
import { functionHost, type HostedFunction, type ThreadReply, threadId } from './lambda';
import { collectingEmf } from './metrics';
import { noUsage } from './usage';

// The functions' own thread, for a runtime made with `thread` (./lambda.ts): it runs each
// invocation it is handed with functionHost, as the runtime would on its own thread, and hands back
// the result or the error, the AWS calls, the storage work and the EMF lines the function printed.
interface Request {
  id: number;
  fn: HostedFunction;
  load?: boolean;
  event?: unknown;
  requestId: string;
  usage?: boolean;
}
const host = functionHost();
const port = parentPort!;
port.postMessage({ threadId: threadId() ?? 0 });
port.on('message', async ({ id, fn, load, event, requestId, usage: withUsage }: Request) => {
  if (load) {
    await host.load(fn).catch(() => undefined); // a module that fails to load fails its invocations
    return port.postMessage({ id });
  }
  const calls = new Map<string, number>();
  const written = new Set<string>();
  const usage = withUsage ? noUsage() : undefined;
  const emf: string[] = [];
  const reply: ThreadReply = { id };
  try {
    reply.result = await collectingEmf({ emf: (line) => void emf.push(line) }, () => host.run(fn, event, { requestId, calls, written, usage }));
  } catch (e) {
    const error = e instanceof Error ? e : new Error(String(e));
    reply.error = { name: error.name, message: error.message, stack: error.stack };
  }
  Object.assign(reply, { calls: [...calls], written: [...written], usage, emf });
  try {
    port.postMessage(reply);
  } catch (e) {
    // A result that cannot cross threads fails the invocation rather than leave it waiting.
    port.postMessage({ ...reply, result: undefined, error: { name: 'DataCloneError', message: String(e) } });
  }
});
