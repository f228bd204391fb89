import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestStack } from '../harness/stack';
import { createFlow, ledger, ledgerItems, ok, paymentIn, queueDepth, startPaymentsStack, sum, units, type World, waitFor } from '../harness/world';
import type { WebhookReceiver } from '../servers/webhook-receiver';

// Faults only the stack shows: the stream reader down after a commit, the relay crashing after it
// sent, 50 payments contending on DynamoDB's shards. A duplicate payment message, a crash of the
// worker after its write, an old message's shape, the liquidity threshold and the permanent
// failures (payments racing to one intent among them) are tested in memory:
// test/unit/services/payments.test.ts.

let s: TestStack;
let w: World;
let events: WebhookReceiver;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ s, w, events, stop } = await startPaymentsStack({ eurLiquidity: '100000' }));
});
afterAll(() => stop());
afterEach(() => {
  delete process.env.PAYMENT_FAULTS;
});

describe('faults lose nothing and never double-spend', () => {
  it('the stream reader down right after a commit: the event waits on the stream and arrives once when it is back', async () => {
    await s.streams.stop();
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, metadata: { outage: true } }));
    await new Promise((r) => setTimeout(r, 500));
    expect(events.deliveries.filter((d) => d.event.data.id === intent.id)).toHaveLength(0);
    s.streams.start();
    const created = await events.waitForEvent('payment_intent.created', (d) => d.id === intent.id);
    await new Promise((r) => setTimeout(r, 500));
    expect(events.deliveries.filter((d) => d.event.id === created.id)).toHaveLength(1);
  });

  it('the relay crashes after sending: the stream hands the batch back, and the FSP still gets each event once', async () => {
    const putsBefore = s.stats().outboxRelay?.calls['EventBridge.PutEvents'] ?? 0;
    process.env.PAYMENT_FAULTS = 'outbox-relay:after-send';
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, metadata: { relayCrash: true } }));
    const created = await events.waitForEvent('payment_intent.created', (d) => d.id === intent.id);
    await waitFor('the relay to send the event again', async () =>
      (s.stats().outboxRelay.calls['EventBridge.PutEvents'] ?? 0) >= putsBefore + 2 ? true : undefined,
    );
    delete process.env.PAYMENT_FAULTS;
    await waitFor('the relay to get past the batch', async () => ((await queueDepth(s, 'WebhookQueue')) === 0 ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    expect(events.deliveries.filter((d) => d.event.id === created.id)).toHaveLength(1);
    expect((await s.admin('GET', `/webhook-events/${created.id}`)).body.attempts).toHaveLength(1);
  });

  it('50 concurrent payments into one asset leave every balance exact', async () => {
    const before = await ledger(s);
    const flows = await Promise.all(Array.from({ length: 50 }, () => createFlow(s, w.alice, w.carlos, { value: '9', assetCode: 'EUR' })));
    const fundings = await Promise.all(flows.map((f) => s.admin('POST', `/payments/${f.payment.id}/fund`)));
    expect(fundings.map((r) => r.status)).toEqual(Array(50).fill(200));
    await Promise.all(flows.map((f) => paymentIn(s, f.payment.id, ['completed'], 30_000)));
    const after = await ledger(s);
    const delta = (acct: string) => (after.get(acct) ?? 0n) - (before.get(acct) ?? 0n);
    expect(delta(`liquidity:${w.eur.id}`)).toBe(-units(9 * 50));
    expect(delta(`liquidity:${w.usd.id}`)).toBe(units(10 * 50));
    expect(delta(`settlement:${w.usd.id}`)).toBe(-units(10 * 50));
    for (const f of flows) expect(after.get(`intent:${f.intent.id}`)).toBe(units(9));
    expect(sum(after)).toBe(0n);
    // The fundings spread over the shards of the USD settlement account.
    const shards = [...(await ledgerItems(s)).entries()].filter(([id, balance]) => id.startsWith(`settlement:${w.usd.id}#`) && balance !== 0n);
    expect(shards.length).toBeGreaterThan(4);
  });
});
