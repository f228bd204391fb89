import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import type { Context } from 'aws-lambda';
import { scoped } from '../../platform/store';
import { commonErrors } from '../../shared/errors';
import type { Node } from '../../shared/node';
import { IDEMPOTENCY_EXPIRES_AFTER_SECONDS, idempotencyPersistence, idempotencyRefusal } from '../http/idempotency';

// Rafiki's idempotencyKey, as the REST routes' Idempotency-Key (lib/api/http/admin.ts): the same key
// and input replay the stored answer, the same key with another input is refused
// (idempotency_key_reused), one still running is idempotency_key_in_progress; keys are scoped per
// tenant and operation, on the same table. A failure stores nothing: a retry runs again.
const config = new IdempotencyConfig({
  eventKeyJmesPath: 'input.idempotencyKey',
  payloadValidationJmesPath: 'input',
  throwOnNoIdempotencyKey: false,
  expiresAfterSeconds: IDEMPOTENCY_EXPIRES_AFTER_SECONDS,
});

type Input = { input: Record<string, any> };
type Resolve<A extends Input> = (node: Node, args: A) => Promise<unknown>;

export function idempotent<A extends Input>(operation: string, resolve: Resolve<A>) {
  const byScope = new Map<string, (args: A, node: Node) => Promise<unknown>>();
  const scopedTo = (node: Node) => {
    const keyPrefix = scoped(node, `graphql ${operation}`);
    let fn = byScope.get(keyPrefix);
    if (!fn) {
      // (Stored as JSON is: no undefined fields, which the persistence layer cannot write.)
      fn = makeIdempotent(async (args: A, n: Node) => JSON.parse(JSON.stringify(await resolve(n, args))), {
        persistenceStore: idempotencyPersistence(node),
        config,
        keyPrefix,
        dataIndexArgument: 0,
      });
      byScope.set(keyPrefix, fn);
    }
    return fn;
  };
  return async (_: unknown, args: A, { node, lambda }: { node: Node; lambda?: Context }) => {
    const key = args.input?.idempotencyKey;
    if (key === undefined || key === null) return resolve(node, args);
    if (key.length > 255) throw commonErrors.invalidRequest('input.idempotencyKey must be at most 255 characters');
    // A claim held by a request that died expires with its invocation's time, and may then be taken again.
    if (lambda) config.registerLambdaContext(lambda);
    return scopedTo(node)({ input: JSON.parse(JSON.stringify(args.input)) } as A, node).catch((e) => {
      throw idempotencyRefusal(e);
    });
  };
}
