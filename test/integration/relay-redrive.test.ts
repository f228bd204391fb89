import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { STACK_ENV_FILE } from '../../infra/local/defaults';
import { ROOT } from '../../infra/local/serverless-config';
import type { TestStack } from '../stack';
import type { WebhookReceiver } from '../webhook-receiver';
import { createFlow, ledger, ok, paymentIn, queueDepth, startPaymentsStack, sum, units, type World, waitFor } from '../world';

// The outbox relay's stream mapping, as the local run holds it to serverless.yml: a record the relay
// cannot send is retried RELAY_MAX_RETRY_ATTEMPTS times, then parked on RelayFailuresQueue (Lambda's
// on-failure record: where it is, not what), and its shard goes on. `npm run relay:redrive` sends
// it later through the relay's own code, and what a consumer de-duplicates reaches it once.
const dataDir = mkdtempSync(join(tmpdir(), 'relay-redrive-'));
let s: TestStack;
let w: World;
let events: WebhookReceiver;
let stop: () => Promise<void>;

beforeAll(async () => {
  // The command finds this stack as it finds npm start's: by the functions' environment in its data folder.
  ({ s, w, events, stop } = await startPaymentsStack({ settings: { RELAY_MAX_RETRY_ATTEMPTS: '2' }, stack: { envFile: join(dataDir, STACK_ENV_FILE) } }));
});
afterAll(async () => {
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
});
afterEach(() => {
  delete process.env.PAYMENT_FAULTS;
});

// `npm run relay:redrive`, in a process of its own, with the faults given (none by default).
function redriveCommand(args: string[] = [], faults = ''): Promise<{ code: number; out: string }> {
  return new Promise((done) =>
    execFile(
      'npm',
      ['run', '-s', 'relay:redrive', '--', ...args],
      { cwd: ROOT, env: { ...process.env, LOCAL_DATA_DIR: dataDir, PAYMENT_FAULTS: faults } },
      (e, stdout, stderr) => done({ code: e ? Number(e.code) : 0, out: `${stdout}${stderr}` }),
    ),
  );
}
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

describe('the outbox relay parks what it cannot send, and the re-drive command sends it', () => {
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

    const run = await redriveCommand();
    expect(run.out).toContain('1 parked record(s) re-driven, 0 left parked');
    expect(run.out).toContain('from the stream');
    expect(run.code).toBe(0);
    const created = await events.waitForEvent('payment_intent.created', (d) => d.id === intent.id);
    expect(await parked()).toBe(0);
    expect((await redriveCommand()).out).toContain('0 parked record(s) re-driven, 0 left parked');
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

    const died = await redriveCommand([], 'outbox-relay:after-send');
    expect(died.code).toBe(1);
    expect(died.out).toContain('0 parked record(s) re-driven, 1 left parked');
    expect(await parked()).toBe(1);
    await paymentIn(s, payment.id, ['completed']); // what it sent before dying went out
    await events.waitForEvent('payment.completed', (d) => d.id === payment.id);

    const worked = s.stats().paymentsWorker.invocations;
    const run = await redriveCommand();
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

    const run = await redriveCommand(['--from-table']);
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
