import { config } from '../config';
import { DomainError } from '../errors';
import { message } from '../events';
import { conflictState } from '../resources';
import { commit } from '../tx';
import type { ListQuery, RetryMessage, WebhookEvent } from './schemas';
import * as store from './store';

// Webhook events as the Admin API shows them: read, listed, redelivered. Their delivery is in
// ./deliver.ts, apart, so that these routes are bundled without the sender and its signer.

export function webhookView(r: WebhookEvent): WebhookEvent {
  return { id: r.id, type: r.type, createdAt: r.createdAt, status: r.status, attempts: r.attempts, data: r.data };
}

// A follow-up attempt of an event, on the webhook queue after `delaySeconds`.
export const retryMessage = (m: RetryMessage, delaySeconds: number) => message(store.partition(m.webhookEvent), config.WEBHOOK_QUEUE_URL, m, delaySeconds);

export async function getWebhookEvent(id: string): Promise<WebhookEvent> {
  const r = await store.findRecord(id);
  if (!r) throw new DomainError('not_found', 'webhook_event_not_found', `No webhook event ${id}`);
  return webhookView(r);
}

export async function listWebhookEvents(q: ListQuery) {
  const page = await store.listRecords(q);
  return { items: page.items.map(webhookView), nextCursor: page.nextCursor };
}

// Sends a delivered or failed event again, with the same id, on a fresh retry schedule.
export async function redeliverWebhookEvent(id: string): Promise<WebhookEvent> {
  const r = await store.findRecord(id);
  if (!r) throw new DomainError('not_found', 'webhook_event_not_found', `No webhook event ${id}`);
  if (r.status === 'pending') throw conflictState('Webhook event', id, 'pending (being delivered)', 'redelivered');
  const conflicts = await commit([store.reopen(r)], [retryMessage({ webhookEvent: id, attempt: r.attempts.length, notBefore: new Date().toISOString() }, 0)]);
  if (conflicts.length) throw conflictState('Webhook event', id, 'changing', 'redelivered now');
  return { ...webhookView(r), status: 'pending' };
}
