import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { STACK_ENV_FILE } from '../../infra/local/defaults';
import { ROOT } from '../../infra/local/serverless-config';
import type { TestStack } from '../stack';
import type { WebhookReceiver } from '../webhook-receiver';
import { createFlow, ledger, ok, paymentIn, queueDepth, startPaymentsStack, sum, units, type World, waitFor } from '../world';

// Every failure queue of the service, and `npm run redrive -- <queue>`, run as a command against a
// running local stack, which sends what waits there again through the service's own code. The
// outbox relay's stream mapping, as the local run holds it to serverless.yml: a record the relay
// cannot send is retried RELAY_MAX_RETRY_ATTEMPTS times, then parked on RelayFailuresQueue (Lambda's
// on-failure record: where it is, not what), and its shard goes on. The dead-letter queues and the
// scheduled runs' failure queue hold what SQS, EventBridge and Lambda put there on AWS (the local
// run does not move messages there itself, so the tests put them as AWS would).
const dataDir = mkdtempSync(join(tmpdir(), 'redrive-'));
let s: TestStack;
let w: World;
let events: WebhookReceiver;
let stop: () => Promise<void>;

beforeAll(async () => {
  // The command finds this stack as it finds npm start's: by the functions' environment in its data folder.
  // One retry a second after a failed webhook attempt, then the event is parked.
  ({ s, w, events, stop } = await startPaymentsStack({
    settings: { RELAY_MAX_RETRY_ATTEMPTS: '2', WEBHOOK_RETRY_SCHEDULE_SECS: '1' },
    stack: { envFile: join(dataDir, STACK_ENV_FILE) },
  }));
});
afterAll(async () => {
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
});
afterEach(() => {
  delete process.env.PAYMENT_FAULTS;
  events.respondWith(() => 204);
});

// `npm run redrive -- <args>`, in a process of its own, with the faults given (none by default).
function redriveCommand(args: string[], faults = ''): Promise<{ code: number; out: string }> {
  return new Promise((done) =>
    execFile(
      'npm',
      ['run', '-s', 'redrive', '--', ...args],
      { cwd: ROOT, env: { ...process.env, LOCAL_DATA_DIR: dataDir, ADMIN_API_URL: s.adminUrl, PAYMENT_FAULTS: faults } },
      (e, stdout, stderr) => done({ code: e ? Number(e.code) : 0, out: `${stdout}${stderr}` }),
    ),
  );
}
const relayRedrive = (args: string[] = [], faults = '') => redriveCommand(['RelayFailuresQueue', ...args], faults);
// A message on a queue, as SQS, EventBridge or Lambda would have put it there on AWS.
const put = (queue: string, body: unknown) => s.sqs.send(new SendMessageCommand({ QueueUrl: s.refs[queue].ref, MessageBody: JSON.stringify(body) }));
// What the bus puts on the webhook queue (and on EventsDeadLetterQueue when it cannot): the event in its envelope.
const busEvent = (type: string) => {
  const detail = { id: randomUUID(), type, createdAt: new Date().toISOString(), data: { id: randomUUID() } };
  return { version: '0', id: randomUUID(), 'detail-type': type, source: 'payment-service', time: detail.createdAt, detail };
};
const parked = () => queueDepth(s, 'RelayFailuresQueue');
const parkedOne = () => waitFor('a record on RelayFailuresQueue', async () => ((await parked()) === 1 ? true : undefined));
// Deliveries the FSP answered, of an event id or of a type about a resource.
const deliveries = (match: (e: { id: string; type: string; data: any }) => boolean) => events.deliveries.filter((d) => match(d.event));
const relayInvocations = () => s.stats().outboxRelay?.invocations ?? 0;
// Until what was committed before has gone out (the local stream has one shard, read in order).
let markers = 0;
async function relayCaughtUp() {
  const marker = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, metadata: { marker: ++markers } }));
  await events.waitForEvent('payment_intent.created', (d) => d.id === marker.id);
}

describe('the outbox relay parks what it cannot send, and `npm run redrive -- RelayFailuresQueue` sends it', () => {
  it('a record still failing after its retries is parked with where it is, the shard goes on, and the command sends it once', async () => {
    await relayCaughtUp();
    const invoked = relayInvocations();
    process.env.PAYMENT_FAULTS = 'outbox-relay:send'; // the bus and the queues refuse it
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, metadata: { parked: 'first' } }));
    await parkedOne();
    expect(relayInvocations() - invoked).toBe(3); // the first try and RELAY_MAX_RETRY_ATTEMPTS retries
    delete process.env.PAYMENT_FAULTS;

    // Lambda's on-failure record: the shard and the range of sequence numbers, not the item.
    const { Messages = [] } = await s.sqs.send(new ReceiveMessageCommand({ QueueUrl: s.refs.RelayFailuresQueue.ref, VisibilityTimeout: 0 }));
    const record = JSON.parse(Messages[0].Body!);
    expect(record.requestContext).toMatchObject({ condition: 'RetryAttemptsExhausted', approximateInvokeCount: 3 });
    expect(record.DDBStreamBatchInfo).toMatchObject({ batchSize: 1, streamArn: s.refs.MainTable.streamArn, shardId: expect.any(String) });
    expect(record.DDBStreamBatchInfo.startSequenceNumber).toBe(record.DDBStreamBatchInfo.endSequenceNumber);

    // Its shard went on: the next change is sent at once; the parked one was not sent.
    const next = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, metadata: { parked: 'next' } }));
    await events.waitForEvent('payment_intent.created', (d) => d.id === next.id);
    expect(deliveries((e) => e.data.id === intent.id)).toEqual([]);

    const run = await relayRedrive();
    expect(run.out).toContain('1 message(s) of RelayFailuresQueue re-driven, 0 left on it');
    expect(run.out).toContain('from the stream');
    expect(run.code).toBe(0);
    const created = await events.waitForEvent('payment_intent.created', (d) => d.id === intent.id);
    expect(await parked()).toBe(0);
    expect((await relayRedrive()).out).toContain('0 message(s) of RelayFailuresQueue re-driven, 0 left on it');
    await new Promise((r) => setTimeout(r, 300));
    expect(deliveries((e) => e.id === created.id)).toHaveLength(1);
  });

  it('a re-drive that dies after sending leaves the record parked; run again, each event and the payment still happen once', async () => {
    const { payment, intent } = await createFlow(s, w.alice, w.bob, { value: '500', assetCode: 'USD' });
    await relayCaughtUp(); // the flow's own records went out
    process.env.PAYMENT_FAULTS = 'outbox-relay:send';
    await ok(s.admin('POST', `/payments/${payment.id}/fund`), 200); // payment.funded and the payment's message, in one outbox item
    await parkedOne();
    delete process.env.PAYMENT_FAULTS;
    await new Promise((r) => setTimeout(r, 300));
    expect((await s.admin('GET', `/payments/${payment.id}`)).body.state).toBe('sending'); // funded; its message waits, parked

    const died = await relayRedrive([], 'outbox-relay:after-send');
    expect(died.code).toBe(1);
    expect(died.out).toContain('0 message(s) of RelayFailuresQueue re-driven, 1 left on it');
    expect(await parked()).toBe(1);
    await paymentIn(s, payment.id, ['completed']); // what it sent before dying went out
    await events.waitForEvent('payment.completed', (d) => d.id === payment.id);

    const worked = s.stats().paymentsWorker.invocations;
    const run = await relayRedrive();
    expect(run.code).toBe(0);
    expect(await parked()).toBe(0);
    // The worker got the payment's message again and found the work done; the webhook sender got
    // payment.funded again and found it delivered.
    await waitFor('the worker to take the message again', async () => (s.stats().paymentsWorker.invocations > worked ? true : undefined));
    await waitFor('the queues to empty', async () => ((await queueDepth(s, 'PaymentsQueue')) + (await queueDepth(s, 'WebhookQueue')) === 0 ? true : undefined));
    for (const type of ['payment.funded', 'payment.completed'])
      expect(
        deliveries((e) => e.type === type && e.data.id === payment.id),
        type,
      ).toHaveLength(1);
    const after = await ledger(s);
    expect(after.get(`intent:${intent.id}`)).toBe(units(500));
    expect(sum(after)).toBe(0n);
  });

  it('from the table once the stream no longer has it: the window holds records sent before, which reach the FSP once still', async () => {
    await relayCaughtUp();
    process.env.PAYMENT_FAULTS = 'outbox-relay:send';
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, metadata: { parked: 'table' } }));
    await parkedOne();
    delete process.env.PAYMENT_FAULTS;
    const before = await ledger(s);

    const run = await relayRedrive(['--from-table']);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/re-driven: .* outbox record\(s\), from the table/);
    await events.waitForEvent('payment_intent.created', (d) => d.id === intent.id);
    await waitFor('the queues to empty', async () => ((await queueDepth(s, 'PaymentsQueue')) + (await queueDepth(s, 'WebhookQueue')) === 0 ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    // Every outbox item of the minutes around it went to the relay again (the earlier tests' too):
    // every event still reached the FSP once, and no payment moved again.
    const ids = events.deliveries.map((d) => d.event.id);
    expect(ids.length).toBeGreaterThan(3);
    expect(new Set(ids).size).toBe(ids.length);
    expect(await ledger(s)).toEqual(before);
  });
});

describe('`npm run redrive -- <queue>` empties every other failure queue, by the path its messages missed', () => {
  it('lists the failure queues and what each holds', async () => {
    const run = await redriveCommand([]);
    expect(run.code).toBe(0);
    for (const queue of [
      'RelayFailuresQueue',
      'ScheduledFailuresQueue',
      'PaymentsDeadLetterQueue',
      'WebhookDeadLetterQueue',
      'EventsDeadLetterQueue',
      'WebhookParkingQueue',
    ])
      expect(run.out).toMatch(new RegExp(`^${queue}: \\d+ message\\(s\\)`, 'm'));
    const refused = await redriveCommand(['PaymentsQueue']);
    expect(refused.code).toBe(2);
    expect(refused.out).toContain('PaymentsQueue is not a failure queue');
  });

  // A payment message that crashed the worker on every receive waited on the dead-letter queue, with
  // no way back: the queue's policy lets only the outbox relay send to PaymentsQueue.
  it('PaymentsDeadLetterQueue: a dead-lettered payment message goes back to the payments queue through the relay, and the payment completes', async () => {
    const { payment, intent } = await createFlow(s, w.alice, w.bob, { value: '300', assetCode: 'USD' });
    await relayCaughtUp();
    // Funded, but its message never reached the worker: its outbox record is parked (and dropped here).
    process.env.PAYMENT_FAULTS = 'outbox-relay:send';
    await ok(s.admin('POST', `/payments/${payment.id}/fund`), 200);
    await parkedOne();
    delete process.env.PAYMENT_FAULTS;
    const { Messages = [] } = await s.sqs.send(new ReceiveMessageCommand({ QueueUrl: s.refs.RelayFailuresQueue.ref }));
    await s.sqs.send(new DeleteMessageCommand({ QueueUrl: s.refs.RelayFailuresQueue.ref, ReceiptHandle: Messages[0].ReceiptHandle }));
    // The worker's message, as SQS moves it to the dead-letter queue after its last receive.
    await put('PaymentsDeadLetterQueue', { paymentId: payment.id, intentId: intent.id });
    expect((await s.admin('GET', `/payments/${payment.id}`)).body.state).toBe('sending');

    const run = await redriveCommand(['PaymentsDeadLetterQueue']);
    expect(run.out).toContain('1 message(s) of PaymentsDeadLetterQueue re-driven, 0 left on it');
    expect(run.code).toBe(0);
    await paymentIn(s, payment.id, ['completed']);
    expect((await ledger(s)).get(`intent:${intent.id}`)).toBe(units(300));
    expect(await queueDepth(s, 'PaymentsDeadLetterQueue')).toBe(0);
  });

  it('WebhookDeadLetterQueue and EventsDeadLetterQueue: each event goes back to the webhook queue and reaches the FSP once', async () => {
    const crashed = busEvent('test.crashed_the_sender');
    const undelivered = busEvent('test.refused_by_the_queue');
    await put('WebhookDeadLetterQueue', crashed);
    await put('EventsDeadLetterQueue', undelivered);
    for (const [queue, event] of [
      ['WebhookDeadLetterQueue', crashed],
      ['EventsDeadLetterQueue', undelivered],
    ] as const) {
      const run = await redriveCommand([queue]);
      expect(run.out, queue).toContain(`1 message(s) of ${queue} re-driven, 0 left on it`);
      await events.waitForEvent(event.detail.type, (d) => d.id === event.detail.data.id);
      expect(await queueDepth(s, queue)).toBe(0);
    }
    // Sent twice (a run that died after sending, say), an event still reaches the FSP once.
    await put('WebhookDeadLetterQueue', crashed);
    expect((await redriveCommand(['WebhookDeadLetterQueue'])).code).toBe(0);
    await waitFor('the webhook queue to empty', async () => ((await queueDepth(s, 'WebhookQueue')) === 0 ? true : undefined));
    expect(deliveries((e) => e.id === crashed.detail.id)).toHaveLength(1);
  });

  it('ScheduledFailuresQueue: a scheduled run that failed runs again with its event; a record the service cannot run stays', async () => {
    // An intent that expires in a moment: the expirer's run is what expires it.
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, expiresAt: new Date(Date.now() + 5000).toISOString() }));
    await waitFor('the intent to be due', async () => (Date.now() > Date.parse(intent.expiresAt) + 100 ? true : undefined));
    const failure = (fn: string) => ({
      version: '1.0',
      timestamp: new Date().toISOString(),
      requestContext: {
        requestId: randomUUID(),
        functionArn: `arn:aws:lambda:us-east-1:000000000000:function:${fn}:$LATEST`,
        condition: 'RetriesExhausted',
        approximateInvokeCount: 3,
      },
      requestPayload: { version: '0', id: randomUUID(), 'detail-type': 'Scheduled Event', source: 'aws.events', time: new Date().toISOString(), detail: {} },
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      responsePayload: { errorType: 'Error', errorMessage: 'DynamoDB was away' },
    });
    await put('ScheduledFailuresQueue', failure('paymentIntentsExpire'));
    await put('ScheduledFailuresQueue', failure('noSuchFunction'));
    const run = await redriveCommand(['ScheduledFailuresQueue']);
    expect(run.out).toContain('re-driven: paymentIntentsExpire ran again');
    expect(run.out).toContain('serverless.yml has no function noSuchFunction');
    expect(run.out).toContain('1 message(s) of ScheduledFailuresQueue re-driven, 1 left on it');
    expect(run.code).toBe(1);
    await events.waitForEvent('payment_intent.expired', (d) => d.id === intent.id); // what the expirer's run records
    expect(await queueDepth(s, 'ScheduledFailuresQueue')).toBe(1);
  });

  it('WebhookParkingQueue: an event whose attempts were used up is redelivered through the Admin API; a parked copy of one delivered since is dropped', async () => {
    events.respondWith((d) => (d.event.type === 'payment_intent.created' && d.event.data.metadata?.parking ? 500 : 204));
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, metadata: { parking: true } }));
    const failed = await waitFor('the event to be failed and parked', async () => {
      const page = (await s.admin('GET', `/webhook-events?resourceId=${intent.id}&status=failed`)).body;
      return page.items?.[0] && (await queueDepth(s, 'WebhookParkingQueue')) === 1 ? page.items[0] : undefined;
    });
    events.respondWith(() => 204);
    const run = await redriveCommand(['WebhookParkingQueue']);
    expect(run.out).toContain(`re-driven: webhook event ${failed.id} redelivered`);
    expect(run.code).toBe(0);
    await events.waitForEvent('payment_intent.created', (d) => d.id === intent.id);
    expect((await s.admin('GET', `/webhook-events/${failed.id}`)).body.status).toBe('delivered');
    // The same copy again (a run that died before deleting it): nothing is sent twice.
    await put('WebhookParkingQueue', { id: failed.id, type: failed.type });
    const again = await redriveCommand(['WebhookParkingQueue']);
    expect(again.out).toContain(`webhook event ${failed.id} is delivered now: nothing to redeliver`);
    expect(deliveries((e) => e.id === failed.id && e.type === 'payment_intent.created').filter((d) => d.answered === 204)).toHaveLength(1);
  });
});
