import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/emulators/emulators';
import { type Stack, startStack } from '../../infra/local/start/stack';
import { adminClient } from '../harness/stack';
import { ok, waitFor } from '../harness/world';
import { startWebhookReceiver, TEST_WEBHOOK_SECRET } from '../servers/webhook-receiver';

// The local run keeps its data (npm start): after a restart the tables and metrics are there, and the outbox
// relay goes on from where it stopped, so what was committed but not sent is sent then, and what
// was sent is not sent again.
const SECRET = 'restart-test-secret-0123456789';
const dataDir = mkdtempSync(join(tmpdir(), 'local-restart-'));
let stack: Stack | undefined;
const receiver = await startWebhookReceiver();
afterAll(async () => {
  await stack?.stop();
  await receiver.stop();
});

// The same ports each time, as npm start has (this process's SDK clients keep their endpoints).
const ports = {
  dynamodb: await freePort(),
  sqs: await freePort(),
  eventbridge: await freePort(),
  openPayments: await freePort(), // the wallet addresses' base, which the data records
  authServer: await freePort(),
};
const start = async () => {
  await stack?.stop(); // a test that ends with its node running leaves it to the next start
  stack = await startStack({
    dataDir,
    ports,
    settings: {
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      ADMIN_API_SECRET: SECRET,
      EXCHANGE_RATES_URL: '',
      WEBHOOK_URL: receiver.url,
      WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
      WEBHOOK_RETRY_SCHEDULE_SECS: '1,4,4',
    },
  });
  return { stack, ...adminClient(stack.adminUrl, SECRET) };
};
const deliveriesOf = (id: string) => receiver.deliveries.filter((d) => d.event.data.id === id && d.event.type === 'payment_intent.created');

describe('a local restart', () => {
  it('keeps the data, sends what was committed but not sent, and sends nothing twice', async () => {
    let node = await start();
    await ok(node.admin('POST', '/assets', { code: 'RST', scale: 2 }));
    const wallet = (await ok(node.admin('POST', '/wallet-addresses', { address: `${node.stack.openPaymentsUrl}/restart`, assetCode: 'RST' }))).address;
    const sent = await ok(node.admin('POST', '/payment-intents', { walletAddress: wallet }));
    await waitFor('the first event', async () => deliveriesOf(sent.id)[0]);
    await node.stack.streams.stop(); // the relay is down: the next event is committed, not sent
    const waiting = await ok(node.admin('POST', '/payment-intents', { walletAddress: wallet }));
    await node.stack.stop();
    stack = undefined;
    expect(deliveriesOf(waiting.id)).toHaveLength(0);

    node = await start();
    expect((await ok(node.admin('GET', `/payment-intents/${waiting.id}`), 200)).id).toBe(waiting.id);
    // The metrics too: the first run's series are in the data folder.
    const created = node.stack.metrics!.store.find('AWS/Lambda', 'Invocations').find((x) => x.dimensions.FunctionName === 'paymentIntentsCreate');
    expect([...created!.minutes.values()].reduce((n, m) => n + m.sum, 0)).toBeGreaterThanOrEqual(2);
    await waitFor('the waiting event', async () => deliveriesOf(waiting.id)[0]);
    await new Promise((r) => setTimeout(r, 500)); // room for a duplicate to show, if there were one
    expect(deliveriesOf(waiting.id)).toHaveLength(1);
    expect(deliveriesOf(sent.id)).toHaveLength(1);
  });

  // Issue 17, D4b: the retries are delayed messages on the webhook queue, which the SQS emulator
  // keeps in the data folder, so a restart keeps them, their delays too.
  it('delivers the webhook retries that were scheduled when it stopped', async () => {
    let node = await start();
    await node.admin('POST', '/assets', { code: 'RST', scale: 2 }); // 201, or 409 after the first test
    const wallet = (await ok(node.admin('POST', '/wallet-addresses', { address: `${node.stack.openPaymentsUrl}/retries`, assetCode: 'RST' }))).address;
    receiver.respondWith((d) => (d.event.data.walletAddress === wallet ? 503 : 204));
    const intents = await Promise.all([1, 2, 3].map(() => ok(node.admin('POST', '/payment-intents', { walletAddress: wallet }))));
    const eventIds = await Promise.all(intents.map((i) => waitFor('a first attempt', async () => deliveriesOf(i.id)[0]?.event.id)));
    const records = async () => Promise.all(eventIds.map(async (id) => (await ok(node.admin('GET', `/webhook-events/${id}`), 200)) as Record<string, any>));
    // (a record is written once its attempt is answered, so the FSP may see an event before it exists)
    const attempts = async () => Promise.all(eventIds.map(async (id) => (await node.admin('GET', `/webhook-events/${id}`)).body.attempts?.length ?? 0));
    // Each waits for its third attempt (4 s after the second): the stack stops now.
    await waitFor('two failed attempts of each', async () => ((await attempts()).every((n) => n === 2) ? true : undefined));
    await node.stack.stop();
    stack = undefined;
    receiver.respondWith(() => 204);

    node = await start();
    await waitFor('the third attempts', async () => ((await records()).every((r) => r.status === 'delivered') ? true : undefined), 60_000);
    for (const r of await records()) expect(r.attempts.map((a: { status?: number }) => a.status)).toEqual([503, 503, 204]);
    for (const id of eventIds) expect(receiver.deliveries.filter((d) => d.event.id === id && d.answered === 204)).toHaveLength(1);
  });

  // A pending event whose next attempt never came (its message lost, as the queues' were on a crash
  // before they were kept; here their folder is removed while the node is down) can be redelivered
  // once that attempt is REDELIVER_OVERDUE_SECS late, and is then sent once.
  it('redelivers a pending event whose next attempt is long overdue, and only then', async () => {
    let node = await start();
    await node.admin('POST', '/assets', { code: 'RST', scale: 2 });
    const wallet = (await ok(node.admin('POST', '/wallet-addresses', { address: `${node.stack.openPaymentsUrl}/overdue`, assetCode: 'RST' }))).address;
    receiver.respondWith((d) => (d.event.data.walletAddress === wallet ? 503 : 204));
    const intent = await ok(node.admin('POST', '/payment-intents', { walletAddress: wallet }));
    const id = await waitFor('a first attempt', async () => deliveriesOf(intent.id)[0]?.event.id);
    const record = async () => (await ok(node.admin('GET', `/webhook-events/${id}`), 200)) as Record<string, any>;
    await waitFor('two failed attempts', async () => ((await node.admin('GET', `/webhook-events/${id}`)).body.attempts?.length === 2 ? true : undefined));
    // A redelivery now would race the scheduled attempt: refused, and the detail says from when not.
    const early = await node.admin('POST', `/webhook-events/${id}/redeliver`);
    expect(early.status).toBe(409);
    expect(early.body.detail).toMatch(/is pending \(its next attempt is due at .*\); it cannot be redelivered before \d{4}-/);
    await node.stack.stop();
    rmSync(join(dataDir, 'sqs'), { recursive: true });
    receiver.respondWith(() => 204);

    node = await start();
    const stuck = await record();
    expect(stuck).toMatchObject({ status: 'pending' });
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(stuck.nextAttemptAt) - Date.now()) + 500));
    expect(await record()).toMatchObject({ status: 'pending', attempts: stuck.attempts }); // lost: nothing came
    const refused = await node.admin('POST', `/webhook-events/${id}/redeliver`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'invalid_state' });

    // 15 minutes later (the record's clock moved back, as waiting would).
    const overdue = new Date(Date.now() - 901_000).toISOString();
    await node.stack.dynamo.send(
      new UpdateItemCommand({
        TableName: node.stack.env.WEBHOOK_EVENTS_TABLE,
        Key: { id: { S: id } },
        UpdateExpression: 'SET nextAttemptAt = :t',
        ExpressionAttributeValues: { ':t': { S: overdue } },
      }),
    );
    const [accepted, again] = await Promise.all([1, 2].map(() => node.admin('POST', `/webhook-events/${id}/redeliver`)));
    expect([accepted.status, again.status].sort()).toEqual([202, 409]); // two at once: one redelivery
    const done = await waitFor('the redelivery', async () => {
      const r = await record();
      return r.status === 'delivered' ? r : undefined;
    });
    expect(done.attempts.map((a: { status?: number; error?: string }) => a.status ?? a.error)).toEqual([
      503,
      503,
      `redelivered: the attempt due at ${overdue} never ran`,
      204,
    ]);
    expect(receiver.deliveries.filter((d) => d.event.id === id && d.answered === 204)).toHaveLength(1);
  });
});
