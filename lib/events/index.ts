import { randomUUID } from 'node:crypto';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, eventBridge, sqs } from '../aws';
import { config } from '../config';
import { logger } from '../log';
import type { TransactItem } from '../ledger';

// Domain events and queue messages leave through a transactional outbox: the state change and its
// outbox items commit in one DynamoDB transaction, the same request then sends them and deletes
// the items, and a scheduled sweep sends whatever a crash left behind. Sending is therefore at
// least once; every event keeps its id, which consumers de-duplicate on.
export const EVENT_SOURCE = 'payment-service';

export interface DomainEvent {
  id: string;
  type: string;
  createdAt: string;
  data: unknown;
}

export type Outgoing = { kind: 'event'; event: DomainEvent } | { kind: 'message'; queueUrl: string; body: string; delaySeconds?: number };

interface OutboxEntry {
  key: { pk: string; sk: string };
  out: Outgoing;
}

export const domainEvent = (type: string, data: unknown): DomainEvent => ({ id: randomUUID(), type, createdAt: new Date().toISOString(), data });

const OUTBOX_PK = 'OUTBOX';

export function outboxEntries(outgoing: Outgoing[]): { items: TransactItem[]; entries: OutboxEntry[] } {
  const entries = outgoing.map((out) => ({ key: { pk: OUTBOX_PK, sk: `${new Date().toISOString()}#${randomUUID()}` }, out }));
  return {
    entries,
    // Stored as JSON text: event data holds FSP metadata, which DynamoDB attributes cannot always hold.
    items: entries.map((e) => ({ Put: { TableName: config.MAIN_TABLE, Item: { ...e.key, out: JSON.stringify(e.out) } } })),
  };
}

async function send(outgoing: Outgoing[]): Promise<void> {
  const events = outgoing.flatMap((o) => (o.kind === 'event' ? [o.event] : []));
  const messages = outgoing.flatMap((o) => (o.kind === 'message' ? [o] : []));
  const sends: Promise<unknown>[] = [];
  for (let i = 0; i < events.length; i += 10) {
    sends.push(
      eventBridge
        .send(
          new PutEventsCommand({
            Entries: events.slice(i, i + 10).map((e) => ({
              EventBusName: config.EVENT_BUS_NAME,
              Source: EVENT_SOURCE,
              DetailType: e.type,
              Detail: JSON.stringify(e),
            })),
          }),
        )
        .then((r) => {
          if (r.FailedEntryCount) throw new Error(`EventBridge refused ${r.FailedEntryCount} events`);
        }),
    );
  }
  const byQueue = new Map<string, typeof messages>();
  for (const m of messages) byQueue.set(m.queueUrl, [...(byQueue.get(m.queueUrl) ?? []), m]);
  for (const [queueUrl, queued] of byQueue) for (let i = 0; i < queued.length; i += 10) {
    const batch = queued.slice(i, i + 10);
    sends.push(
      sqs
        .send(
          new SendMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: batch.map((m, j) => ({ Id: String(j), MessageBody: m.body, DelaySeconds: m.delaySeconds })),
          }),
        )
        .then((r) => {
          if (r.Failed?.length) throw new Error(`SQS refused ${r.Failed.length} messages`);
        }),
    );
  }
  await Promise.all(sends);
}

const deleteEntries = async (entries: OutboxEntry[]) => {
  for (let i = 0; i < entries.length; i += 25) {
    await db.send(new BatchWriteCommand({ RequestItems: { [config.MAIN_TABLE]: entries.slice(i, i + 25).map((e) => ({ DeleteRequest: { Key: e.key } })) } }));
  }
};

// Send committed outbox entries, then delete them. A failure here loses nothing: the entries stay
// for the sweep (which may then send them again; consumers de-duplicate), so callers carry on.
export async function flush(entries: OutboxEntry[]): Promise<void> {
  if (!entries.length) return;
  try {
    await send(entries.map((e) => e.out));
    await deleteEntries(entries);
  } catch (error) {
    logger.warn('Outbox entries left to the sweep', { error: (error as Error).message, count: entries.length });
  }
}

// Scheduled: send outbox entries older than `graceSecs` (their own request has had its chance).
export async function sweepOutbox(graceSecs = 30): Promise<number> {
  const before = new Date(Date.now() - graceSecs * 1000).toISOString();
  let swept = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const res = await db.send(
      new QueryCommand({
        TableName: config.MAIN_TABLE,
        KeyConditionExpression: 'pk = :pk AND sk < :before',
        ExpressionAttributeValues: { ':pk': OUTBOX_PK, ':before': before },
        ExclusiveStartKey,
        Limit: 100,
      }),
    );
    // Entry by entry, so that one that keeps failing holds up none of the others.
    for (const i of res.Items ?? []) {
      const entry = { key: { pk: i.pk as string, sk: i.sk as string }, out: JSON.parse(i.out) as Outgoing };
      try {
        await send([entry.out]);
        await deleteEntries([entry]);
        swept++;
      } catch (error) {
        logger.error('Outbox entry could not be sent; the next sweep retries it', { key: entry.key, error: (error as Error).message });
      }
    }
    ExclusiveStartKey = res.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  if (swept) logger.info('Outbox sweep sent leftovers', { swept });
  return swept;
}
