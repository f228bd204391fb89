import { createHmac } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { findAssetByCode } from '../assets';
import { type DomainEvent, message, type Outgoing } from '../platform/events';
import { logger } from '../platform/log';
import { countWebhookAttempt, countWebhookParked } from '../platform/metrics';
import { boundedFetch, errorCode, OutboundFetchError } from '../platform/net/fetch';
import { acceptedSecrets, secretIfSet, validSecretValue } from '../platform/secrets';
import { sqs, withTraceHeader } from '../platform/sqs';
import { currentTraceHeader } from '../platform/tracing';
import { commit } from '../platform/tx';
import type { Node } from '../shared/node';
import { findWalletRecordByUrl } from '../wallet-addresses';
import { redeliverParked, retryMessage } from '.';
import { type RafikiBody, type RafikiRefs, rafikiBody, rafikiSignature, refsNeeded } from './rafiki';
import { hopDelay, retryDelay } from './schedule';
import type { Attempt, RedeliverMessage, RetryMessage, WebhookEvent } from './schemas';
import * as store from './store';

// Webhook delivery to the FSP. Each domain event reaches the webhook queue (EventBridge rule) and
// is POSTed to WEBHOOK_URL, signed with WEBHOOK_SECRET per Standard Webhooks, or in Rafiki's dialect
// (WEBHOOK_DIALECT, a tenant's webhookDialect: ./rafiki.ts). A failure is retried
// on WEBHOOK_RETRY_SCHEDULE_SECS by a new, delayed message; after the last one the event is failed
// and parked (WEBHOOK_PARKING_QUEUE_URL). Every queue message names the attempt it is for, and runs
// only if the record has made exactly that many attempts, so duplicates do nothing. Recording an
// attempt and sending its follow-up commit together (lib/platform/tx outbox): a crash loses neither.

// The signers for the secret's values to accept (current first; during a rotation also the new
// or the previous one: lib/platform/secrets.ts), each webhook signed by all of them, as Standard
// Webhooks allows (space-separated signatures), so that the FSP verifies with either value while it
// switches. Each signs as Standard Webhooks' `sign` does (v1, base64 of HMAC-SHA256 over
// "<id>.<seconds>.<body>"), on Node's crypto (the library's is SHA-256 in JavaScript, several times
// the CPU). The key's bytes: a value in Standard Webhooks form is whsec_ + their base64
// (validSecretValue has checked it); any other (the one generated at the first deploy) is them.
type Signer = (id: string, at: Date, body: string) => string;
export function signerOf(value: string): Signer {
  const key = value.startsWith('whsec_') ? Buffer.from(value.slice('whsec_'.length), 'base64') : Buffer.from(value);
  return (id, at, body) =>
    `v1,${createHmac('sha256', key)
      .update(`${id}.${Math.floor(at.getTime() / 1000)}.${body}`)
      .digest('base64')}`;
}
async function currentSigners(node: Node): Promise<Signer[] | string> {
  let values: string[];
  try {
    values = await acceptedSecrets(node, 'WEBHOOK_SECRET');
  } catch {
    return 'WEBHOOK_SECRET is not set';
  }
  // The current value must be good; a malformed pending or previous one (put by hand) is left out,
  // rather than stopping every delivery for the day it is accepted.
  if (!validSecretValue('WEBHOOK_SECRET', values[0])) return 'WEBHOOK_SECRET must be "whsec_" followed by base64';
  return values.filter((v) => validSecretValue('WEBHOOK_SECRET', v)).map(signerOf);
}
const payloadOf = (r: WebhookEvent) => JSON.stringify({ id: r.id, type: r.type, createdAt: r.createdAt, data: r.data });

interface Request {
  headers: Record<string, string>;
  body: string;
}

// Standard Webhooks: our body, and the three headers signed with the secret.
export async function standardRequest(node: Node, r: WebhookEvent, at: Date): Promise<Request | string> {
  const webhooks = await currentSigners(node);
  if (typeof webhooks === 'string') return webhooks;
  const body = payloadOf(r);
  const signature = webhooks.map((sign) => sign(r.id, at, body)).join(' ');
  return { headers: { 'webhook-id': r.id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature }, body };
}

// Rafiki's (./rafiki.ts): its body, with what its data names that ours does not looked up, signed
// with Rafiki-Signature when there is a secret (as Rafiki, which signs only with one).
async function rafikiRequest(node: Node, r: WebhookEvent, at: Date): Promise<Request | string> {
  const needed = refsNeeded(r.type, r.data);
  const refs: RafikiRefs = {};
  if (needed.walletAddress) refs.walletAddressId = (await findWalletRecordByUrl(node, needed.walletAddress))?.id;
  if (needed.assetCode) refs.assetId = (await findAssetByCode(node, needed.assetCode))?.id;
  let body: RafikiBody;
  try {
    body = rafikiBody(r, refs);
  } catch (e) {
    return (e as Error).message;
  }
  const key = await secretIfSet(node, 'WEBHOOK_SECRET');
  return { headers: key ? { 'rafiki-signature': rafikiSignature(key, body, at.getTime()) } : {}, body: JSON.stringify(body) };
}

async function post(node: Node, r: WebhookEvent): Promise<Attempt> {
  const at = new Date();
  const started = performance.now();
  const done = (fields: { status?: number; error?: string }): Attempt => ({ at: at.toISOString(), ...fields, ms: Math.round(performance.now() - started) });
  if (!node.webhooks.url) return done({ error: 'WEBHOOK_URL is not set' });
  const request = await (node.webhooks.dialect === 'rafiki' ? rafikiRequest : standardRequest)(node, r, at);
  if (typeof request === 'string') return done({ error: request });
  // The URL is the operator's setting (WEBHOOK_URL, a tenant's webhookUrl): it may be on the FSP's
  // own network. A redirect is an answer (a failed attempt), not followed.
  try {
    const res = await boundedFetch(
      node.webhooks.url,
      { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/json', ...request.headers }, body: request.body },
      { allowPrivate: true, timeoutMs: node.webhooks.timeoutSecs * 1000, statusOnly: true },
    );
    return done({ status: res.status });
  } catch (e) {
    const timedOut = e instanceof OutboundFetchError && e.reason === 'timeout';
    return done({ error: timedOut ? `no answer within ${node.webhooks.timeoutSecs} s` : (errorCode(e) ?? (e as Error).message) });
  }
}

const parked = (node: Node, r: Pick<WebhookEvent, 'id' | 'type' | 'createdAt' | 'data'>) =>
  message(store.partition(node, r.id), node.queues.webhookParking, { id: r.id, type: r.type, createdAt: r.createdAt, data: r.data });

// The first attempt (EventBridge's message) checks that the event has no record yet, posts, and
// writes the record with its outcome in one conditional put (alone when it sends nothing, else in
// one transaction with what it sends); later attempts (our retry messages) update the record.
export async function handleWebhookMessage(node: Node, body: unknown): Promise<void> {
  const msg = body as Partial<RetryMessage & RedeliverMessage> & { detail?: DomainEvent };
  let record: WebhookEvent & { failures: number };
  let attempt = 0;
  if (msg.detail?.id) {
    const found = await store.findRecord(node, msg.detail.id);
    if (found) return; // this event was already attempted: a duplicate
    record = { ...msg.detail, status: 'pending', attempts: [], failures: 0 };
  } else if (typeof msg.webhookEvent === 'string' && Number.isInteger(msg.attempt)) {
    const stored = await store.findRecord(node, msg.webhookEvent);
    if (stored?.status !== 'pending' || stored.attempts.length !== msg.attempt) return; // done, or a duplicate
    record = stored;
    attempt = msg.attempt!;
  } else if (typeof msg.redeliver === 'string') return redeliverParked(node, msg.redeliver);
  else return logger.error('Dropping a webhook message of unknown shape', { body });

  // Waits past SQS's 15-minute delay limit are chained, one hop at a time, in the same trace.
  if (msg.notBefore && Date.parse(msg.notBefore) > Date.now()) {
    await sqs().send(
      new SendMessageCommand({
        QueueUrl: node.queues.webhooks,
        MessageBody: JSON.stringify(msg),
        DelaySeconds: hopDelay(Date.parse(msg.notBefore), Date.now()),
        ...withTraceHeader(currentTraceHeader()),
      }),
    );
    return;
  }

  const result = await post(node, record);
  const delivered = result.status !== undefined && result.status >= 200 && result.status < 300;
  countWebhookAttempt(delivered);
  const failures = delivered ? record.failures : record.failures + 1;
  const delay = retryDelay(node.webhooks.retryScheduleSecs, failures);
  let status: WebhookEvent['status'] = 'pending';
  const outgoing: Outgoing[] = [];
  let nextAttemptAt: string | undefined;
  if (delivered) status = 'delivered';
  else if (result.status === 410)
    status = 'failed'; // the receiver asked for no more
  else if (delay === undefined) {
    status = 'failed';
    outgoing.push(parked(node, record));
  } else {
    nextAttemptAt = new Date(Date.now() + delay * 1000).toISOString();
    outgoing.push(retryMessage(node, { webhookEvent: record.id, attempt: attempt + 1, notBefore: nextAttemptAt }, Math.min(delay, 900)));
  }
  const conflicts =
    attempt === 0
      ? await commit(node, store.firstRecord(node, msg.detail!, result, status, failures, nextAttemptAt), outgoing)
      : await commit(node, store.recordAttempt(node, record, attempt, result, status, failures, nextAttemptAt), outgoing);
  if (conflicts.length) return; // a duplicate message recorded this attempt first
  if (status === 'failed' && outgoing.length) countWebhookParked();
  const log = { id: record.id, type: record.type, attempt: attempt + 1, status: result.status, error: result.error, ms: result.ms, outcome: status };
  if (delivered) logger.info('Webhook delivered', log);
  else logger.warn('Webhook attempt failed', log);
}

// The last receive of a webhook message failed (not the FSP: the service itself, e.g. DynamoDB):
// record the event as failed and park its payload, so that it can be redelivered, instead of
// leaving it pending.
export async function giveUpWebhook(node: Node, body: unknown, error: Error): Promise<void> {
  const msg = body as Partial<RetryMessage> & { detail?: DomainEvent };
  const id = msg.detail?.id ?? msg.webhookEvent;
  if (!id) return;
  const stored = await store.findRecord(node, id);
  const failedAttempt = { at: new Date().toISOString(), error: `delivery gave up: ${error.message}`, ms: 0 };
  const park = parked(node, (stored ?? msg.detail)!);
  let conflicts: string[] | undefined;
  if (!stored && msg.detail) conflicts = await commit(node, store.firstRecord(node, msg.detail, failedAttempt, 'failed', 1), [park]);
  else if (stored?.status === 'pending')
    conflicts = await commit(node, store.recordAttempt(node, stored, stored.attempts.length, failedAttempt, 'failed', stored.failures + 1), [park]);
  if (conflicts?.length === 0) countWebhookParked();
}
