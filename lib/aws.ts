import { AsyncLocalStorage } from 'node:async_hooks';
import { tracer } from './tracing';

// What every AWS SDK client of the service shares. Each client is created lazily by the module
// that uses it (lib/db.ts, lib/sqs.ts, the outbox relay), so a function bundles only the clients
// it calls; endpoints come from the SDK's own AWS_ENDPOINT_URL_* variables, which the local stack
// sets to the emulators. Every client counts its calls, so that the local runtime and the bench
// can say how many AWS calls one invocation made, and is traced (X-Ray subsegments, lib/tracing.ts).
type Counts = Map<string, number>;
const counting = new AsyncLocalStorage<Counts>();

interface Instrumentable {
  middlewareStack: { add(middleware: unknown, options: { step: 'initialize'; name: string }): void };
}

export function counted<C extends Instrumentable>(client: C, service: string): C {
  client.middlewareStack.add(
    (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => (args: unknown) => {
      const counts = counting.getStore();
      if (counts) {
        const name = `${service}.${(context.commandName ?? 'Unknown').replace(/Command$/, '')}`;
        counts.set(name, (counts.get(name) ?? 0) + 1);
      }
      return next(args);
    },
    { step: 'initialize', name: 'countAwsCalls' },
  );
  return tracer.captureAWSv3Client(client);
}

// Runs `fn`, adding up in `calls` the AWS calls it makes, by "Service.Operation" (even if it throws).
export const countAwsCalls = <T>(calls: Counts, fn: () => Promise<T>): Promise<T> => counting.run(calls, fn);
