import { message } from '../platform/events';
import { logger } from '../platform/log';
import { commit } from '../platform/tx';
import { commonErrors } from '../shared/errors';
import type { Node } from '../shared/node';
import { webhookErrors } from './errors';
import { REDELIVER_OVERDUE_SECS, redeliverableFrom } from './schedule';
import type { Attempt, ListQuery, RetryMessage, WebhookEvent } from './schemas';
import * as store from './store';

export { recordLookup as webhookEventLookup } from './store';

// Webhook events as the Admin API shows them: read, listed, redelivered. Their delivery is in
// ./deliver.ts, apart, so that these routes are bundled without the sender and its signer.

export function webhookView(r: WebhookEvent): WebhookEvent {
  return {
    id: r.id,
    type: r.type,
    createdAt: r.createdAt,
    status: r.status,
    attempts: r.attempts,
    ...(r.status === 'pending' && r.nextAttemptAt && { nextAttemptAt: r.nextAttemptAt }),
    data: r.data,
  };
}

// A follow-up attempt of an event, on the webhook queue after `delaySeconds`.
export const retryMessage = (node: Node, m: RetryMessage, delaySeconds: number) =>
  message(store.partition(node, m.webhookEvent), node.queues.webhooks, m, delaySeconds);

export async function getWebhookEvent(node: Node, id: string): Promise<WebhookEvent> {
  const r = await store.findRecord(node, id);
  if (!r) throw webhookErrors.notFound(id);
  return webhookView(r);
}

export async function listWebhookEvents(node: Node, q: ListQuery) {
  const page = await store.listRecords(node, q);
  return { items: page.items.map(webhookView), nextCursor: page.nextCursor };
}

// Sends an event again, with the same id, on a fresh retry schedule: a delivered or failed one, or a
// pending one whose next attempt is overdue by REDELIVER_OVERDUE_SECS (lost, e.g. with a local run's
// queues before they were kept on disk): by then no live attempt can race the redelivery.
export async function redeliverWebhookEvent(node: Node, id: string): Promise<WebhookEvent> {
  const r = await store.findRecord(node, id);
  if (!r) throw webhookErrors.notFound(id);
  const now = new Date();
  let skipped: Attempt | undefined;
  if (r.status === 'pending') {
    const from = redeliverableFrom(r, node.webhooks.retryScheduleSecs);
    if (now.getTime() < from) {
      const due = r.nextAttemptAt ? `its next attempt is due at ${r.nextAttemptAt}` : 'an attempt is scheduled';
      throw commonErrors.invalidState('Webhook event', id, `pending (${due})`, `redelivered before ${new Date(from).toISOString()}`);
    }
    skipped = {
      at: now.toISOString(),
      error: `redelivered: the attempt due at ${new Date(from - REDELIVER_OVERDUE_SECS * 1000).toISOString()} never ran`,
      ms: 0,
    };
  }
  if (!(await reopenNow(node, r, now, skipped))) throw commonErrors.invalidState('Webhook event', id, 'changing', 'redelivered now');
  return webhookView({ ...r, status: 'pending', attempts: skipped ? [...r.attempts, skipped] : r.attempts, nextAttemptAt: now.toISOString() });
}

// A parked event sent back to the sender (`npm run redrive -- WebhookParkingQueue`): redelivered as
// above if its record still says failed; one delivered or redelivered since is left as it is. Its
// tenant's node, a deleted tenant's too (lib/api/context.ts onTenantOf): what was in flight ends as it would have.
export async function redeliverParked(node: Node, id: string): Promise<void> {
  const r = await store.findRecord(node, id);
  if (r?.status !== 'failed') return logger.info('A parked webhook event is no longer failed; not redelivered', { id, status: r?.status });
  if (await reopenNow(node, r, new Date())) logger.info('Parked webhook event redelivered', { id });
}

// Puts an event back to pending, its next attempt due now, with that attempt's message, in one
// commit; false when the record changed since it was read (another redelivery, an attempt).
async function reopenNow(node: Node, r: store.WebhookRecord, now: Date, skipped?: Attempt): Promise<boolean> {
  const attempt = r.attempts.length + (skipped ? 1 : 0);
  const conflicts = await commit(node, store.reopen(node, r, now.toISOString(), skipped), [
    retryMessage(node, { webhookEvent: r.id, attempt, notBefore: now.toISOString() }, 0),
  ]);
  return conflicts.length === 0;
}
