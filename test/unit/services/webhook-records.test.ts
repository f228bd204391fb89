import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db } from '../../../lib/platform/db';
import type { DomainEvent } from '../../../lib/platform/events';
import { commit } from '../../../lib/platform/tx';
import { listWebhookEvents, redeliverWebhookEvent } from '../../../lib/webhooks';
import type { WebhookEvent } from '../../../lib/webhooks/schemas';
import { firstRecord, recordAttempt } from '../../../lib/webhooks/store';
import { inMemory } from '../../harness/in-memory';

// A webhook delivery record is one item, found by the resource its event is about through the
// ByResource index at each of its statuses (lib/webhooks/store.ts); one written before that index,
// with its lookup item beside it, is still found, once. (Delivery itself, on the emulators:
// test/integration/webhooks.test.ts.)
const mem = inMemory();
const table = () => mem.db.items(mem.node.tables.webhookEvents);
const sent = (at: Date) => ({ at: at.toISOString(), status: 500, ms: 3 });

function eventAbout(resourceId: string, createdAt: Date, type = 'payment_intent.created'): DomainEvent {
  return { id: randomUUID(), type, createdAt: createdAt.toISOString(), data: { id: resourceId } } as DomainEvent;
}

// The ids listed for the resource (page by page, `limit` a page) and, for each status, those of it.
async function listed(resourceId: string, limit = 10) {
  const ids = async (status?: WebhookEvent['status']) => {
    const found: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listWebhookEvents(mem.node, { resourceId, limit, cursor, ...(status && { status }) });
      found.push(...page.items.map((e) => e.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return found;
  };
  return { all: await ids(), pending: await ids('pending'), failed: await ids('failed'), delivered: await ids('delivered') };
}

describe('webhook records by resource', () => {
  it('a record is one item, found by its resource at each change of its status', async () => {
    const resource = randomUUID();
    const event = eventAbout(resource, new Date());
    const other = eventAbout(randomUUID(), new Date());
    await commit(mem.node, firstRecord(mem.node, other, sent(new Date()), 'delivered', 0));
    await commit(mem.node, firstRecord(mem.node, event, sent(new Date()), 'pending', 1, new Date().toISOString()));
    expect(table()).toHaveLength(2); // the two records, nothing beside them
    expect(await listed(resource)).toEqual({ all: [event.id], pending: [event.id], failed: [], delivered: [] });

    await commit(mem.node, recordAttempt(mem.node, event, 1, sent(new Date()), 'failed', 2));
    expect(await listed(resource)).toEqual({ all: [event.id], pending: [], failed: [event.id], delivered: [] });

    await redeliverWebhookEvent(mem.node, event.id);
    expect(await listed(resource)).toEqual({ all: [event.id], pending: [event.id], failed: [], delivered: [] });

    await commit(mem.node, recordAttempt(mem.node, event, 2, { ...sent(new Date()), status: 204 }, 'delivered', 0));
    expect(await listed(resource)).toEqual({ all: [event.id], pending: [], failed: [], delivered: [event.id] });
    expect(table()).toHaveLength(2);
  });

  it('a record written before ByResource, with its lookup item, is found by its resource once, before and after its status changes', async () => {
    const resource = randomUUID();
    const old = eventAbout(resource, new Date(Date.now() - 60_000));
    const statusSort = `${old.createdAt}#${old.id}`;
    const ttl = Math.floor(Date.now() / 1000) + 30 * 24 * 3600;
    // As firstRecord wrote them before ByResource: the record (failed at once, by a 410) and its lookup item.
    await db().send(
      new PutCommand({
        TableName: mem.node.tables.webhookEvents,
        Item: {
          ...old,
          eventId: old.id,
          data: JSON.stringify(old.data),
          status: 'failed',
          attempts: [{ ...sent(new Date()), status: 410 }],
          failures: 1,
          ttl,
          statusShard: 'failed#3',
          statusSort,
          lookupPk: `type:${old.type}`,
        },
      }),
    );
    await db().send(
      new PutCommand({
        TableName: mem.node.tables.webhookEvents,
        Item: { id: `${old.id}#resource`, lookupPk: `resource:${resource}`, statusSort, status: 'failed', type: old.type, ttl },
      }),
    );
    const later = eventAbout(resource, new Date(), 'payment_intent.completed');
    await commit(mem.node, firstRecord(mem.node, later, { ...sent(new Date()), status: 204 }, 'delivered', 0));
    expect(table()).toHaveLength(3); // the new record has no lookup item

    for (const limit of [10, 1])
      expect(await listed(resource, limit)).toEqual({ all: [later.id, old.id], pending: [], failed: [old.id], delivered: [later.id] });

    // Redelivered: its lookup item still says failed, and no longer counts.
    await redeliverWebhookEvent(mem.node, old.id);
    for (const limit of [10, 2, 1])
      expect(await listed(resource, limit)).toEqual({ all: [later.id, old.id], pending: [old.id], failed: [], delivered: [later.id] });
    await commit(mem.node, recordAttempt(mem.node, old, 1, { ...sent(new Date()), status: 204 }, 'delivered', 0));
    for (const limit of [10, 1])
      expect(await listed(resource, limit)).toEqual({ all: [later.id, old.id], pending: [], failed: [], delivered: [later.id, old.id] });
  });
});
