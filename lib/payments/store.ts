import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db';
import { config } from '../config';
import type { TransactItem } from '../table';
import type { PaymentRecord, PaymentState } from './schemas';

const TABLE = () => config.MAIN_TABLE;
const paymentKey = (id: string) => ({ pk: `PAYMENT#${id}`, sk: 'PAYMENT' });
// The payment's partition, which holds its outbox items too.
export const partition = (id: string) => paymentKey(id).pk;

export const putPayment = (r: PaymentRecord): TransactItem => ({
  // Metadata as JSON text: the FSP's data need not fit DynamoDB's attribute rules.
  Put: { TableName: TABLE(), Item: { ...paymentKey(r.id), ...r, metadata: JSON.stringify(r.metadata) }, ConditionExpression: 'attribute_not_exists(pk)' },
});

// A state transition that only happens from `from`: concurrent attempts make one change.
export function transition(id: string, from: PaymentState, to: PaymentState, set: Record<string, unknown> = {}): TransactItem {
  const names: Record<string, string> = { '#state': 'state' };
  const values: Record<string, unknown> = { ':from': from, ':to': to };
  const sets = ['#state = :to'];
  for (const [k, v] of Object.entries(set)) {
    names[`#${k}`] = k;
    values[`:${k}`] = v;
    sets.push(`#${k} = :${k}`);
  }
  return {
    Update: {
      TableName: TABLE(),
      Key: paymentKey(id),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: '#state = :from',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

export async function findPayment(id: string): Promise<PaymentRecord | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: TABLE(), Key: paymentKey(id), ConsistentRead: true }));
  if (!Item) return undefined;
  const { pk, sk, metadata, ...record } = Item;
  return { ...record, metadata: JSON.parse(metadata) } as PaymentRecord;
}
