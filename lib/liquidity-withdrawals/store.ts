import { getOne, idOfKey, type Lookup, type Page, pageOfListed, queryAll, scoped } from '../platform/store';
import type { Write } from '../platform/tx';
import type { Node } from '../shared/node';
import { type Ending, stateAfter } from './rules';
import type { LiquidityWithdrawal } from './schemas';

// A withdrawal is one record under its id. While it is pending it carries `openPk` and
// `openExpiresAt`, the keys of the main table's sparse index OpenIntents (which open payment
// intents share, under partitions of their own), so that the expirer finds the due ones by one
// Query; posting or voiding removes them. Pending withdrawals are few (an FSP's treasury moves, not
// payments), so one partition per tenant holds them all.
const key = (node: Node, id: string) => ({ pk: scoped(node, `WITHDRAWAL#${id}`), sk: 'WITHDRAWAL' });
// The withdrawal's partition, which holds its outbox items too.
export const partition = (node: Node, id: string) => key(node, id).pk;
const PENDING = 'WITHDRAWALS_PENDING';

// Refusals: an id taken (the idempotent retry of a creation), a withdrawal that ended meanwhile.
export const WITHDRAWAL_EXISTS = 'withdrawal_exists';
export const WITHDRAWAL_ENDED = 'withdrawal_ended';
declare module '../platform/tx' {
  interface RefusalsOf {
    'liquidity-withdrawals': typeof WITHDRAWAL_EXISTS | typeof WITHDRAWAL_ENDED;
  }
}

export const insertWithdrawal = (node: Node, w: LiquidityWithdrawal): Write => ({
  refusal: WITHDRAWAL_EXISTS,
  Put: {
    TableName: node.tables.main,
    Item: { ...key(node, w.id), ...w, openPk: scoped(node, PENDING), openExpiresAt: `${w.expiresAt}#${w.id}` },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

// Ends a pending withdrawal as `ending` at `now`, on the condition ./rules.ts mayEnd states.
export function endWithdrawal(node: Node, id: string, ending: Ending, now: string): Write {
  const voiding = ending !== 'post';
  return {
    refusal: WITHDRAWAL_ENDED,
    Update: {
      TableName: node.tables.main,
      Key: key(node, id),
      UpdateExpression: `SET #state = :state, ${voiding ? 'voidedAt = :now, voidedBy = :by' : 'postedAt = :now'} REMOVE openPk, openExpiresAt`,
      ConditionExpression: `#state = :pending${ending === 'post' ? ' AND expiresAt > :now' : ending === 'timeout' ? ' AND expiresAt <= :now' : ''}`,
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':state': stateAfter(ending),
        ':pending': 'pending',
        ':now': now,
        ...(voiding && { ':by': ending === 'timeout' ? 'timeout' : 'request' }),
      },
    },
  };
}

const toWithdrawal = ({ pk, sk, openPk, openExpiresAt, ...w }: Record<string, any>) => w as LiquidityWithdrawal;

export const withdrawalLookup = (node: Node, id: string): Lookup<LiquidityWithdrawal> => ({ table: node.tables.main, key: key(node, id), read: toWithdrawal });
export const findWithdrawal = (node: Node, id: string) => getOne(withdrawalLookup(node, id));

// The ids of the pending withdrawals whose timeout is `now` or before.
export async function listDueWithdrawals(node: Node, now: string): Promise<string[]> {
  const due = await queryAll({
    TableName: node.tables.main,
    IndexName: 'OpenIntents',
    KeyConditionExpression: 'openPk = :pending AND openExpiresAt <= :now',
    ExpressionAttributeValues: { ':pending': scoped(node, PENDING), ':now': `${now}#~` },
  });
  return due.map((i) => idOfKey(i.pk));
}

// A page of the pending withdrawals, the latest timeout (so the newest) first: the index's keys,
// then their records in one BatchGetItem.
export async function listPendingWithdrawals(node: Node, limit: number, cursor?: string): Promise<Page<LiquidityWithdrawal>> {
  const page = await pageOfListed({
    table: node.tables.main,
    index: 'OpenIntents',
    partitionKey: 'openPk',
    sortKey: 'openExpiresAt',
    partitions: [scoped(node, PENDING)],
    limit,
    cursor,
    recordKey: ({ pk, sk }) => ({ pk, sk }),
  });
  return { items: page.items.map(toWithdrawal), nextCursor: page.nextCursor };
}
