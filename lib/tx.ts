import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db } from './aws';
import { crashPoint } from './faults';
import { failedConditions } from './table';
import { flush, outboxEntries, type Outgoing } from './events';
import type { TransactItem } from './ledger';

// One state change: its writes and its outgoing events/messages commit together, then the
// outgoing ones are sent. Returns the indexes (into `items`) of failed conditions, or [] on success.
// Transactions that touch a busy item (an asset's liquidity or settlement account) can be
// cancelled for a conflict with another transaction; that is retried here, with jitter.
const CONFLICT_RETRIES = 8;

const isConflict = (e: unknown) =>
  e instanceof TransactionCanceledException && (e.CancellationReasons ?? []).some((r) => r.Code === 'TransactionConflict');

export async function commit(items: TransactItem[], outgoing: Outgoing[] = [], name = 'commit'): Promise<number[]> {
  const outbox = outboxEntries(outgoing);
  for (let attempt = 0; ; attempt++) {
    try {
      await db.send(new TransactWriteCommand({ TransactItems: [...items, ...outbox.items] }));
      crashPoint(`${name}:after-write`);
      break;
    } catch (e) {
      const failed = failedConditions(e);
      if (failed?.length) return failed;
      if (!isConflict(e) || attempt === CONFLICT_RETRIES) throw e;
      await new Promise((r) => setTimeout(r, Math.random() * 5 * 2 ** attempt));
    }
  }
  await flush(outbox.entries);
  return [];
}
