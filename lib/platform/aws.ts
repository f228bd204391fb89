import { AsyncLocalStorage } from 'node:async_hooks';
import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import { currentSpan, type Span, type TraceDocument } from './tracing';

// What every AWS SDK client of the service shares. Each client is created lazily by the module
// that uses it (lib/platform/db.ts, lib/platform/sqs.ts, the outbox relay), so a function bundles only the clients
// it calls; endpoints come from the SDK's own AWS_ENDPOINT_URL_* variables, which the local stack
// sets to the emulators. Every client counts its calls, so that the local runtime and the bench
// can say how many AWS calls one invocation made, and traces each as a subsegment with its
// duration (lib/platform/tracing.ts), when something is being traced.
type Counts = Map<string, number>;
// What a call's observer (the bench's storage accounting) may do: send another input, see the output.
export type CallObserver = (service: string, operation: string, input: object) => { input: object; seen(output: unknown): void };
const counting = new AsyncLocalStorage<{ calls: Counts; observe?: CallObserver; written?: Set<string> }>();

interface Instrumentable {
  middlewareStack: { add(middleware: unknown, options: { step: 'initialize'; name: string }): void; remove(name: string): boolean };
}

interface CallInput {
  TableName?: string;
  QueueUrl?: string;
  TransactItems?: Array<Record<string, { TableName?: string } | undefined>>;
  RequestItems?: Record<string, unknown>;
}
// An SDK middleware's result holds the command's output; the DynamoDB sender's is the output.
export interface CallOutput {
  output?: { $metadata?: { requestId?: string; attempts?: number } };
  $metadata?: { httpStatusCode?: number; requestId?: string; attempts?: number };
}

export function counted<C extends Instrumentable>(client: C, service: string): C {
  // The SDK's logger step copies every input and output through the model's sensitive-field filter
  // for its logger even when that logger (ours: none) drops it: about 2% of a busy function's CPU.
  client.middlewareStack.remove('loggerMiddleware');
  client.middlewareStack.add(
    (next: (args: { input: CallInput }) => Promise<CallOutput>, context: { commandName?: string }) => (args: { input: CallInput }) =>
      countAndTrace(service, (context.commandName ?? 'Unknown').replace(/Command$/, ''), args.input, (input) => next({ ...args, input })),
    { step: 'initialize', name: 'countAndTraceAwsCalls' },
  );
  return client;
}

// One AWS call, counted, observed (when asked) and traced: an SDK client's (above) or the DynamoDB
// sender's (./dynamodb-http), whose result is the output itself.
export function countAndTrace<T>(service: string, operation: string, input: CallInput, call: (input: CallInput) => Promise<T>): Promise<T> {
  const store = counting.getStore();
  if (store) store.calls.set(`${service}.${operation}`, (store.calls.get(`${service}.${operation}`) ?? 0) + 1);
  if (store?.written && service === 'DynamoDB') for (const table of writtenBy(operation, input)) store.written.add(table);
  const observed = store?.observe?.(service, operation, input);
  const result = observed
    ? call(observed.input).then((r) => {
        observed.seen((r as CallOutput).output ?? r);
        return r;
      })
    : call(input);
  const parent = currentSpan();
  return parent ? tracedCall(parent.child(service, { namespace: 'aws', aws: awsFields(operation, input) }), result) : result;
}

// The tables a DynamoDB call writes to (none for a read).
function writtenBy(operation: string, input: CallInput): string[] {
  if (operation === 'TransactWriteItems')
    return (input.TransactItems ?? []).flatMap((item) =>
      Object.entries(item).flatMap(([kind, w]) => (kind === 'ConditionCheck' || !w?.TableName ? [] : [w.TableName])),
    );
  if (operation === 'BatchWriteItem') return Object.keys(input.RequestItems ?? {});
  return /^(Put|Update|Delete)Item$/.test(operation) && input.TableName ? [input.TableName] : [];
}

const awsFields = (operation: string, input: CallInput): TraceDocument['aws'] => ({
  operation,
  ...(input.TableName && { table_name: input.TableName }),
  ...(input.QueueUrl && { queue_url: input.QueueUrl }),
});

async function tracedCall<T>(span: Span, call: Promise<T>): Promise<T> {
  try {
    const result = await call;
    const meta = (result as CallOutput).output?.$metadata ?? (result as CallOutput).$metadata;
    if (meta?.requestId) span.doc.aws!.request_id = meta.requestId;
    if (meta?.attempts && meta.attempts > 1) span.doc.aws!.retries = meta.attempts - 1;
    span.end();
    return result;
  } catch (e) {
    span.end(e);
    throw e;
  }
}

// Runs `fn`, adding up in `calls` the AWS calls it makes, by "Service.Operation" (even if it throws);
// `observe`, when given, sees each call's input (and may change it) and its output; `written`
// gathers the DynamoDB tables it wrote to (the local stream pollers read only theirs again).
export const countAwsCalls = <T>(calls: Counts, fn: () => Promise<T>, observe?: CallObserver, written?: Set<string>): Promise<T> =>
  counting.run({ calls, observe, written }, fn);

// A transaction cancelled for a conflict with another on a busy item (an asset's liquidity or
// settlement account): worth trying again (lib/platform/tx does). Told by name, as the SDK's and the
// JSON sender's exception classes both name it, so that no bundle takes the DynamoDB client for it.
export const isConflict = (e: unknown): boolean =>
  e instanceof Error &&
  e.name === 'TransactionCanceledException' &&
  ((e as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? []).some((r) => r.Code === 'TransactionConflict');

// Why an AWS call's failure, past the SDK's retries, says nothing of the request itself: a throttle,
// a fault on the service's side, a connection lost or refused, or a conflict that outlived tx's
// retries (sent again shortly, the request may pass); undefined for anything else.
export function unavailableBecause(e: unknown): string | undefined {
  if (!(e instanceof Error)) return undefined;
  if (isConflict(e)) return 'a transaction conflict';
  const sdk = e as Parameters<typeof isThrottlingError>[0];
  return isThrottlingError(sdk) || isTransientError(sdk) || isServerError(sdk) ? ((e as { code?: string }).code ?? e.name) : undefined;
}
