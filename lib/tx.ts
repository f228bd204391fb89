import { AsyncLocalStorage } from 'node:async_hooks';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DeleteCommandInput,
  PutCommand,
  type PutCommandInput,
  TransactWriteCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { db } from './db';
import { balanceTooLarge, DomainError } from './errors';
import { type Outgoing, outboxItems } from './events';
import { crashPoint } from './faults';
import { countLedgerConflict } from './metrics';
import { failedConditions, type TransactItem } from './table';

// A request may hand its first transaction an extra item to write along (the Admin API's
// signature replay guard, so that checking it costs no round trip of its own).
interface RequestScope {
  guard?: TransactItem;
  taken: boolean;
}
const requestScope = new AsyncLocalStorage<RequestScope>();

export const inRequestScope = <T>(fn: () => Promise<T>) => requestScope.run({ taken: false }, fn);

export function deferGuard(item: TransactItem): void {
  const scope = requestScope.getStore();
  if (!scope) throw new Error('deferGuard() outside a request scope');
  scope.guard = item;
}

// The guard no transaction has taken yet, if any.
export function untakenGuard(): TransactItem | undefined {
  const scope = requestScope.getStore();
  return scope?.guard && !scope.taken ? scope.guard : undefined;
}

export const replayed = () => new DomainError('unauthorized', 'unauthorized', 'This signature was already used; sign each request afresh');

// One state change: its writes and its outgoing events and messages (as outbox items, which the
// outbox relay sends from the table's stream) commit together. Returns the indexes (into `items`)
// of failed conditions, or [] on success.
// Transactions that touch a busy item (an asset's liquidity or settlement account) can be
// cancelled for a conflict with another transaction; that is retried here, with jitter.
const CONFLICT_RETRIES = 8;

const isConflict = (e: unknown) => e instanceof TransactionCanceledException && (e.CancellationReasons ?? []).some((r) => r.Code === 'TransactionConflict');

export async function commit(items: TransactItem[], outgoing: Outgoing[] = [], name = 'commit'): Promise<number[]> {
  const scope = requestScope.getStore();
  const guard = untakenGuard();
  const all = [...items, ...outboxItems(outgoing), ...(guard ? [guard] : [])];
  if (all.length === 1 && !guard) return writeAlone(all[0], name);
  for (let attempt = 0; ; attempt++) {
    try {
      await db().send(new TransactWriteCommand({ TransactItems: all }));
      if (guard) scope!.taken = true;
      crashPoint(`${name}:after-write`);
      return [];
    } catch (e) {
      const failed = failedConditions(e);
      if (guard && failed?.includes(all.length - 1)) throw replayed();
      if (failed?.length) return failed;
      if (overflows(e)) throw balanceTooLarge();
      if (!isConflict(e) || attempt === CONFLICT_RETRIES) throw e;
      countLedgerConflict();
      await new Promise((r) => setTimeout(r, Math.random() * 5 * 2 ** attempt));
    }
  }
}

// DynamoDB numbers hold 38 digits; a balance that a write would take past them refuses the whole
// write (nothing changes), which is the client's request being too large, not a fault of ours.
const overflows = (e: unknown) => e instanceof Error && e.name === 'ValidationException' && /38 (significant )?digits|number overflow/i.test(e.message);

// A lone write needs no transaction, which would cost twice as much. (If the SDK retries it after
// an unclear failure, its own first write can fail its condition: the lone conditional writes that
// come here, a webhook record's, take a failed condition to mean "already written".)
async function writeAlone(item: TransactItem, name: string): Promise<number[]> {
  try {
    if (item.Put) await db().send(new PutCommand(item.Put as PutCommandInput));
    else if (item.Update) await db().send(new UpdateCommand(item.Update as UpdateCommandInput));
    else if (item.Delete) await db().send(new DeleteCommand(item.Delete as DeleteCommandInput));
    else throw new Error('A lone ConditionCheck writes nothing');
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return [0];
    if (overflows(e)) throw balanceTooLarge();
    throw e;
  }
  crashPoint(`${name}:after-write`);
  return [];
}
