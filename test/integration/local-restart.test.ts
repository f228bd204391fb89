import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/emulators';
import { type Stack, startStack } from '../../infra/local/stack';
import { adminClient } from '../stack';
import { startWebhookReceiver, TEST_WEBHOOK_SECRET } from '../webhook-receiver';
import { ok, waitFor } from '../world';

// The local run keeps its data (npm start): after a restart the tables are there, and the outbox
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
const ports = { dynamodb: await freePort(), sqs: await freePort(), eventbridge: await freePort() };
const start = async () => {
  stack = await startStack({
    dataDir,
    ports,
    settings: {
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      ADMIN_API_SECRET: SECRET,
      EXCHANGE_RATES_URL: '',
      WEBHOOK_URL: receiver.url,
      WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
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
    await waitFor('the waiting event', async () => deliveriesOf(waiting.id)[0]);
    await new Promise((r) => setTimeout(r, 500)); // room for a duplicate to show, if there were one
    expect(deliveriesOf(waiting.id)).toHaveLength(1);
    expect(deliveriesOf(sent.id)).toHaveLength(1);
  }, 60_000);
});
