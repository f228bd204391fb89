import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RestoreSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../infra/local/emulators/emulators';
import { STACK_ENV_FILE } from '../../infra/local/start/defaults';
import { ROOT } from '../../infra/local/start/serverless-config';
import { type TestStack, tenantAdmin } from '../harness/stack';
import { createFlow, ledger, ok, paymentIn, queueDepth, startPaymentsStack, sum, units, type World, waitFor } from '../harness/world';
import { startWebhookReceiver, type WebhookReceiver } from '../servers/webhook-receiver';

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
      { cwd: ROOT, env: { ...process.env, LOCAL_DATA_DIR: dataDir, PAYMENT_FAULTS: faults } },
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
// Lambda's on-failure record of an invocation of `fn`: of a stream batch (with DDBStreamBatchInfo),
// or of an asynchronous one (with the event it failed on, a schedule's by default).
const onFailure = (fn: string) => ({
  version: '1.0',
  timestamp: new Date().toISOString(),
  requestContext: {
    requestId: randomUUID(),
    functionArn: `arn:aws:lambda:us-east-1:000000000000:function:${fn}:$LATEST`,
    condition: 'RetriesExhausted',
    approximateInvokeCount: 3,
  },
  responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
});
const scheduled = () => ({
  version: '0',
  id: randomUUID(),
  'detail-type': 'Scheduled Event',
  source: 'aws.events',
  time: new Date().toISOString(),
  detail: {},
});
const failure = (fn: string, requestPayload: unknown = scheduled()) => ({
  ...onFailure(fn),
  requestPayload,
  responsePayload: { errorType: 'Error', errorMessage: 'DynamoDB was away' },
});
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
    await put('ScheduledFailuresQueue', failure('paymentIntentsExpire'));
    await put('ScheduledFailuresQueue', failure('noSuchFunction'));
    const run = await redriveCommand(['ScheduledFailuresQueue']);
    expect(run.out).toContain('re-driven: paymentIntentsExpire ran again');
    expect(run.out).toMatch(
      /refused: it names arn:aws:lambda:us-east-1:000000000000:function:noSuchFunction:\$LATEST, which is not a function of this service/,
    );
    expect(run.out).toContain('1 message(s) of ScheduledFailuresQueue re-driven, 1 left on it');
    expect(run.code).toBe(1);
    await events.waitForEvent('payment_intent.expired', (d) => d.id === intent.id); // what the expirer's run records
    expect(await queueDepth(s, 'ScheduledFailuresQueue')).toBe(1);
  });

  it('WebhookParkingQueue: an event whose attempts were used up goes back to the sender, which redelivers it; a parked copy of one delivered since is dropped', async () => {
    events.respondWith((d) => (d.event.type === 'payment_intent.created' && d.event.data.metadata?.parking ? 500 : 204));
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, metadata: { parking: true } }));
    const failed = await waitFor('the event to be failed and parked', async () => {
      const page = (await s.admin('GET', `/webhook-events?resourceId=${intent.id}&status=failed`)).body;
      return page.items?.[0] && (await queueDepth(s, 'WebhookParkingQueue')) === 1 ? page.items[0] : undefined;
    });
    events.respondWith(() => 204);
    const run = await redriveCommand(['WebhookParkingQueue']);
    expect(run.out).toContain(`re-driven: webhook event ${failed.id} of tenant operator back to the webhook sender`);
    expect(run.code).toBe(0);
    await events.waitForEvent('payment_intent.created', (d) => d.id === intent.id);
    await waitFor('the record to say delivered', async () =>
      (await s.admin('GET', `/webhook-events/${failed.id}`)).body.status === 'delivered' ? true : undefined,
    );
    // The same copy again (a run that died before deleting it): nothing is sent twice.
    await put('WebhookParkingQueue', { id: failed.id, type: failed.type, createdAt: failed.createdAt, data: failed.data });
    expect((await redriveCommand(['WebhookParkingQueue'])).code).toBe(0);
    await waitFor('the webhook queue to empty', async () => ((await queueDepth(s, 'WebhookQueue')) === 0 ? true : undefined));
    expect((await s.admin('GET', `/webhook-events/${failed.id}`)).body.attempts.filter((a: { status?: number }) => a.status === 204)).toHaveLength(1);
    expect(deliveries((e) => e.id === failed.id && e.type === 'payment_intent.created').filter((d) => d.answered === 204)).toHaveLength(1);
  });
});

describe("WebhookParkingQueue, a tenant's events", () => {
  let secrets: SecretsManagerClient;
  const receivers: WebhookReceiver[] = [];
  beforeAll(() => {
    secrets = new SecretsManagerClient({ endpoint: s.endpoints.secretsmanager, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  });
  afterAll(async () => {
    secrets.destroy();
    for (const r of receivers) await r.stop();
  });

  // A tenant whose webhooks go to an endpoint of its own, and one of its events which that endpoint
  // refused until it was failed and parked (with the tenant, which the relay names on it).
  async function tenantWithParkedEvent(name: string) {
    const hooks = await startWebhookReceiver();
    receivers.push(hooks);
    hooks.respondWith((d) => (d.event.type === 'payment_intent.created' ? 500 : 204));
    const prefix = `${s.openPaymentsUrl}/${name}`;
    const tenant = await ok(s.admin('POST', '/tenants', { name, walletAddressPrefix: prefix, webhookUrl: hooks.url }));
    const admin = tenantAdmin(s.adminUrl, tenant.id, tenant.adminApiSecret);
    await ok(admin('POST', '/assets', { code: 'USD', scale: 2 }));
    const wallet = await ok(admin('POST', '/wallet-addresses', { address: `${prefix}/shop`, assetCode: 'USD' }));
    const intent = await ok(admin('POST', '/payment-intents', { walletAddress: wallet.address }));
    const failed = await waitFor("the tenant's event to be failed and parked", async () => {
      const page = (await admin('GET', `/webhook-events?resourceId=${intent.id}&status=failed`)).body;
      return page.items?.[0] && (await queueDepth(s, 'WebhookParkingQueue')) === 1 ? page.items[0] : undefined;
    });
    hooks.respondWith(() => 204);
    // Received by the tenant's endpoint, signed with the tenant's webhook secret.
    const delivered = async () => {
      await hooks.waitForEvent('payment_intent.created', (d) => d.id === intent.id);
      const [d] = hooks.deliveries.filter((x) => x.event.id === failed.id && x.answered === 204);
      expect(() => new Webhook(tenant.webhookSecret).verify(d.raw, d.headers)).not.toThrow();
      expect(deliveries((e) => e.id === failed.id)).toEqual([]); // none at the operator's endpoint
    };
    return { tenant, admin, failed, delivered };
  }

  it("is redelivered to the tenant's own endpoint, and the queue empties", async () => {
    const { tenant, admin, failed, delivered } = await tenantWithParkedEvent('parked-active');
    const run = await redriveCommand(['WebhookParkingQueue']);
    expect(run.out).toContain(`re-driven: webhook event ${failed.id} of tenant ${tenant.id} back to the webhook sender`);
    expect(run.out).toContain('1 message(s) of WebhookParkingQueue re-driven, 0 left on it');
    expect(run.code).toBe(0);
    await delivered();
    await waitFor('the record to say delivered', async () =>
      (await admin('GET', `/webhook-events/${failed.id}`)).body.status === 'delivered' ? true : undefined,
    );
    expect(await queueDepth(s, 'WebhookParkingQueue')).toBe(0);
  });

  // A deleted tenant's FSP may still want what happened before (and the payments that finished
  // after): its events are redelivered as an active one's, once its webhook secret, scheduled for
  // deletion with it, is restored (docs/tenants.md). Its Admin API is closed, to the operator too.
  it('of a deleted tenant is redelivered to its endpoint too, with its restored webhook secret', async () => {
    const { tenant, admin, failed, delivered } = await tenantWithParkedEvent('parked-deleted');
    await ok(s.admin('DELETE', `/tenants/${tenant.id}`), 204);
    expect((await admin('GET', `/webhook-events/${failed.id}`)).status).toBe(401);
    await secrets.send(new RestoreSecretCommand({ SecretId: `tenants/${tenant.id}/WEBHOOK_SECRET` }));
    const run = await redriveCommand(['WebhookParkingQueue']);
    expect(run.out).toContain(`re-driven: webhook event ${failed.id} of tenant ${tenant.id} back to the webhook sender`);
    expect(run.code).toBe(0);
    await delivered();
    expect(await queueDepth(s, 'WebhookParkingQueue')).toBe(0);
  });
});

describe('`npm run redrive -- <queue>` trusts nothing on a failure queue', () => {
  // Each queue's messages, received and deleted: what a test left there does not reach the next.
  async function emptied(queue: string) {
    for (;;) {
      const { Messages = [] } = await s.sqs.send(new ReceiveMessageCommand({ QueueUrl: s.refs[queue].ref, MaxNumberOfMessages: 10 }));
      if (!Messages.length) return;
      for (const m of Messages) await s.sqs.send(new DeleteMessageCommand({ QueueUrl: s.refs[queue].ref, ReceiptHandle: m.ReceiptHandle }));
    }
  }
  afterEach(async () => {
    for (const queue of [
      'ScheduledFailuresQueue',
      'RelayFailuresQueue',
      'PaymentsDeadLetterQueue',
      'WebhookDeadLetterQueue',
      'EventsDeadLetterQueue',
      'WebhookParkingQueue',
    ])
      await emptied(queue);
  });

  it('refuses an on-failure record that names a function other than those whose failures go there, or another event, names it, keeps it, and invokes nothing', async () => {
    const { payment } = await createFlow(s, w.alice, w.bob, { value: '700', assetCode: 'USD' });
    const before = await ledger(s);
    // A signed request to fund the payment, as API Gateway hands it to the Admin function: run, it would fund it.
    const path = `/payments/${payment.id}/fund`;
    const signature = s.sign('POST', path);
    const fund = {
      resource: '/payments/{id}/fund',
      path,
      httpMethod: 'POST',
      headers: { signature },
      multiValueHeaders: { signature: [signature] },
      pathParameters: { id: payment.id },
      isBase64Encoded: false,
      requestContext: { httpMethod: 'POST', path, resourcePath: '/payments/{id}/fund', stage: 'local', requestId: randomUUID() },
    };
    await emptied('ScheduledFailuresQueue');
    const forged = {
      admin: (await put('ScheduledFailuresQueue', failure('paymentsFund', fund))).MessageId,
      notScheduled: (await put('ScheduledFailuresQueue', failure('paymentIntentsExpire', fund))).MessageId,
      notARecord: (await put('ScheduledFailuresQueue', { functionArn: 'paymentIntentsExpire' })).MessageId,
    };
    const run = await redriveCommand(['ScheduledFailuresQueue']);
    expect(run.code).toBe(1);
    expect(run.out).toContain(
      `left on ScheduledFailuresQueue: message ${forged.admin}: refused: it names arn:aws:lambda:us-east-1:000000000000:function:paymentsFund:$LATEST, which is not a function of this service whose failures go to ScheduledFailuresQueue (ratesRefresh, auditTrail, paymentIntentsExpire, liquidityWithdrawalsExpire, paymentsExpire)`,
    );
    expect(run.out).toContain(
      `left on ScheduledFailuresQueue: message ${forged.notScheduled}: refused: its payload is not the event paymentIntentsExpire's trigger gives it`,
    );
    expect(run.out).toContain(`left on ScheduledFailuresQueue: message ${forged.notARecord}: refused: not a function's on-failure record: requestContext:`);
    expect(run.out).toContain('0 message(s) of ScheduledFailuresQueue re-driven, 3 left on it');
    expect(await queueDepth(s, 'ScheduledFailuresQueue')).toBe(3);
    // Nothing ran: the payment is where it was, and so is every balance.
    expect((await s.admin('GET', `/payments/${payment.id}`)).body.state).toBe(payment.state);
    expect(await ledger(s)).toEqual(before);
  });

  // Each case's message put on its queue, each queue's command run (all at once: each is a process
  // of its own); each message refused with its reason, and left there.
  async function refusedAll(cases: Array<[queue: string, body: unknown, why: string]>) {
    const sent = await Promise.all(cases.map(async ([queue, body]) => (await put(queue, body)).MessageId));
    const queues = [...new Set(cases.map(([queue]) => queue))];
    const runs = new Map(await Promise.all(queues.map(async (queue) => [queue, await redriveCommand([queue])] as const)));
    for (const [i, [queue, , why]] of cases.entries()) {
      const run = runs.get(queue)!;
      expect(run.out, queue).toContain(`left on ${queue}: message ${sent[i]}: refused: `);
      expect(
        run.out.split('\n').find((line) => line.includes(sent[i]!)),
        queue,
      ).toContain(why);
    }
    for (const queue of queues) {
      const count = cases.filter(([q]) => q === queue).length;
      expect(runs.get(queue)!.out, queue).toContain(`0 message(s) of ${queue} re-driven, ${count} left on it`);
      expect(runs.get(queue)!.code, queue).toBe(1);
      expect(await queueDepth(s, queue), queue).toBe(count);
    }
  }

  it("refuses a stream batch's record of another function than the relay, or of another table's stream", async () => {
    const batch = (fn: string, streamArn: string) => ({
      ...onFailure(fn),
      DDBStreamBatchInfo: {
        shardId: 'shardId-00000001',
        startSequenceNumber: '1',
        endSequenceNumber: '2',
        approximateArrivalOfFirstRecord: new Date().toISOString(),
        approximateArrivalOfLastRecord: new Date().toISOString(),
        batchSize: 2,
        streamArn,
      },
    });
    const mainStream = s.refs.MainTable.streamArn!;
    const otherTable = mainStream.replace(/table\/[^/]+\//, 'table/SomeoneElses/');
    await refusedAll([
      [
        'RelayFailuresQueue',
        batch('paymentsFund', mainStream),
        'function:paymentsFund:$LATEST, which is not a function of this service whose failures go to RelayFailuresQueue (outboxRelay)',
      ],
      ['RelayFailuresQueue', batch('outboxRelay', otherTable), `its batch is of ${otherTable}, not of a stream of the main table`],
    ]);
  });

  it('refuses a dead-lettered or parked message that is not what its queue carries', async () => {
    await refusedAll([
      [
        'PaymentsDeadLetterQueue',
        { paymentId: randomUUID(), queueUrl: 'https://elsewhere.example' },
        'not a message of PaymentsQueue: Unrecognized key: "queueUrl"',
      ],
      ['WebhookDeadLetterQueue', { ...busEvent('test.forged'), source: 'someone.else' }, 'not a message of WebhookQueue'],
      ['EventsDeadLetterQueue', { webhookEvent: randomUUID(), attempt: 0, notBefore: new Date().toISOString() }, 'not a message of WebhookQueue: source:'],
      ['WebhookParkingQueue', { id: randomUUID(), tenant: 'not-a-tenant' }, 'not a parked webhook event:'],
    ]);
  });
});
