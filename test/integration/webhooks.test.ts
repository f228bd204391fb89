import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack';
import { ok, paymentIn, setUpWorld, type World, waitFor } from '../harness/world';
import { startWebhookReceiver, TEST_WEBHOOK_SECRET, type WebhookReceiver } from '../servers/webhook-receiver';

let s: TestStack;
let w: World;
let hooks: WebhookReceiver;

beforeAll(async () => {
  hooks = await startWebhookReceiver();
  s = await startTestStack({
    EXCHANGE_RATES_URL: '',
    WEBHOOK_URL: hooks.url,
    WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
    WEBHOOK_RETRY_SCHEDULE_SECS: '1,1,1,1',
    WEBHOOK_TIMEOUT_SECS: '1',
  });
  w = await setUpWorld(s);
});
afterAll(async () => {
  await s.stop();
  await hooks.stop();
});

const deliveriesOf = (id: string) => hooks.deliveries.filter((d) => d.event.id === id);
const record = async (id: string) => (await s.admin('GET', `/webhook-events/${id}`)).body;
// A payment intent's creation gives a fresh event to test delivery with.
async function freshEvent(): Promise<string> {
  const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, metadata: { t: Math.random() } }));
  const event = await waitFor('the payment_intent.created delivery', async () => hooks.deliveries.find((d) => d.event.data.id === intent.id)?.event);
  return event.id;
}
const failingFor = (ids: Set<string>, status = 500) => hooks.respondWith((d) => (ids.has(d.event.data.id) ? status : 204));

describe('webhooks drive the payment', () => {
  it('the FSP funds on payment.created and every event arrives once, signed and verifiable', async () => {
    hooks.respondWith((d) => {
      if (d.event.type === 'payment.created') void s.admin('POST', `/payments/${d.event.data.id}/fund`);
      return 204;
    });
    const intent = await ok(
      s.admin('POST', '/payment-intents', { walletAddress: w.carlos, incomingAmount: { value: '500', assetCode: 'EUR', assetScale: 2 } }),
    );
    await s.admin('POST', '/rates', { sourceAssetCode: 'USD', destinationAssetCode: 'EUR', rate: 0.5 });
    const quote = await ok(s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.id }));
    const payment = await ok(s.admin('POST', '/payments', { walletAddress: w.alice, quoteId: quote.id }));
    await paymentIn(s, payment.id, ['completed']); // nobody but the webhook receiver funded it
    // Events are delivered concurrently, in no promised order: wait for each one asserted on.
    await hooks.waitForEvent('payment_intent.completed', (d) => d.id === intent.id);
    await hooks.waitForEvent('payment.completed', (d) => d.id === payment.id);
    const mine = hooks.deliveries.filter((d) => d.event.data.id === payment.id || d.event.data.id === intent.id);
    expect(mine.map((d) => d.event.type).sort()).toEqual(
      ['payment.completed', 'payment.created', 'payment.funded', 'payment_intent.completed', 'payment_intent.created'].sort(),
    );
    for (const d of mine) {
      expect(d.verified).toBe(true);
      expect(d.headers['webhook-id']).toBe(d.event.id);
      expect(d.headers['content-type']).toBe('application/json');
      expect(Object.keys(d.event)).toEqual(['id', 'type', 'createdAt', 'data']);
    }
    expect(mine.find((d) => d.event.type === 'payment.completed')!.event.data).toMatchObject({
      id: payment.id,
      state: 'completed',
      sentAmount: quote.debitAmount,
    });
  });

  it('a tampered body or an old timestamp fails verification', async () => {
    const d = hooks.deliveries.find((x) => x.verified)!;
    const verifier = new Webhook(TEST_WEBHOOK_SECRET);
    expect(() => verifier.verify(d.raw, d.headers)).not.toThrow();
    expect(() => verifier.verify(d.raw.replace('"data":{', '"data":{"x":1,'), d.headers)).toThrow();
    const old = String(Math.floor(Date.now() / 1000) - 3600);
    expect(() => verifier.verify(d.raw, { ...d.headers, 'webhook-timestamp': old })).toThrow();
    expect(() => new Webhook(`whsec_${Buffer.from('another-secret-entirely-00000000').toString('base64')}`).verify(d.raw, d.headers)).toThrow();
  });
});

describe('retries', () => {
  it('a receiver that fails three times then recovers gets the event once more; the record shows four attempts', async () => {
    let failuresLeft = 3;
    let target = '';
    // The first delivery of this intent's event names it; it and the next two fail.
    hooks.respondWith((d) => {
      if (!target && d.event.data.metadata?.retry === 3) target = d.event.id;
      return d.event.id === target && failuresLeft-- > 0 ? 503 : 204;
    });
    await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, metadata: { retry: 3 } }));
    const id = await waitFor('the event id', async () => target || undefined);
    const delivered = await waitFor('delivery', async () => {
      const r = await record(id);
      return r.status === 'delivered' ? r : undefined;
    });
    expect(delivered.attempts.map((a: { status: number }) => a.status)).toEqual([503, 503, 503, 204]);
    for (const a of delivered.attempts) expect(a).toEqual({ at: expect.any(String), status: expect.any(Number), ms: expect.any(Number) });
    await new Promise((r) => setTimeout(r, 1500)); // nothing more arrives
    expect(deliveriesOf(id).map((d) => d.answered)).toEqual([503, 503, 503, 204]);
    expect(new Set(deliveriesOf(id).map((d) => d.headers['webhook-id']))).toEqual(new Set([id]));
  });

  it('a receiver that always fails: the event ends failed and parked on its queue, and redeliver sends it once it recovers', async () => {
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, metadata: { retry: 'always' } }));
    failingFor(new Set([intent.id]));
    const id = await waitFor('first attempt', async () => hooks.deliveries.find((d) => d.event.data.id === intent.id)?.event.id);
    const failed = await waitFor(
      'failure',
      async () => {
        const r = await record(id);
        return r.status === 'failed' ? r : undefined;
      },
      60_000,
    );
    expect(failed.attempts).toHaveLength(5); // the first try and the four retries of the test schedule
    const parked = await waitFor('the parked message', async () => {
      const { Messages = [] } = await s.sqs.send(
        new ReceiveMessageCommand({ QueueUrl: s.refs.WebhookParkingQueue.ref, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
      );
      return Messages.find((m) => JSON.parse(m.Body!).id === id);
    });
    expect(JSON.parse(parked.Body!)).toMatchObject({ id, type: 'payment_intent.created' });
    const listed = (await s.admin('GET', '/webhook-events?status=failed')).body;
    expect(listed.items.map((e: { id: string }) => e.id)).toContain(id);

    hooks.respondWith(() => 204);
    const accepted = await s.admin('POST', `/webhook-events/${id}/redeliver`);
    expect(accepted.status).toBe(202);
    expect(accepted.body.status).toBe('pending');
    const redelivered = await waitFor('redelivery', async () => {
      const r = await record(id);
      return r.status === 'delivered' ? r : undefined;
    });
    expect(redelivered.attempts).toHaveLength(6);
    expect(deliveriesOf(id).at(-1)!.answered).toBe(204);
    expect(deliveriesOf(id).at(-1)!.headers['webhook-id']).toBe(id);
    // A delivered event can be sent again too; one that is being delivered cannot.
    hooks.respondWith((d) => (d.event.id === id ? 'hang' : 204));
    expect((await s.admin('POST', `/webhook-events/${id}/redeliver`)).status).toBe(202);
    await waitFor('the held delivery', async () => ((await record(id)).status === 'pending' ? true : undefined));
    expect((await s.admin('POST', `/webhook-events/${id}/redeliver`)).status).toBe(409);
    hooks.respondWith(() => 204);
    await waitFor('second redelivery', async () => ((await record(id)).status === 'delivered' ? true : undefined));
    expect(deliveriesOf(id).filter((d) => d.answered === 204)).toHaveLength(2);
  });

  it('a 410 stops retries at once', async () => {
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, metadata: { gone: true } }));
    failingFor(new Set([intent.id]), 410);
    const id = await waitFor('the attempt', async () => hooks.deliveries.find((d) => d.event.data.id === intent.id)?.event.id);
    const failed = await waitFor('failure', async () => {
      const r = await record(id);
      return r.status === 'failed' ? r : undefined;
    });
    expect(failed.attempts.map((a: { status: number }) => a.status)).toEqual([410]);
    await new Promise((r) => setTimeout(r, 1500));
    expect(deliveriesOf(id)).toHaveLength(1);
  });

  it('a receiver that does not answer in time is a failed attempt, and is retried', async () => {
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, metadata: { slow: true } }));
    let hung = 0;
    hooks.respondWith((d) => (d.event.data.id === intent.id && hung++ === 0 ? 'hang' : 204));
    const delivered = await waitFor('delivery after a timeout', async () => {
      const events = (await s.admin('GET', '/webhook-events?status=delivered&limit=100')).body.items;
      return events.find((e: any) => e.data.id === intent.id && e.attempts.length === 2);
    });
    expect(delivered.attempts[0]).toMatchObject({ error: 'no answer within 1 s' });
    expect(delivered.attempts[0].ms).toBeGreaterThanOrEqual(950);
    expect(delivered.attempts[1].status).toBe(204);
  });
});

describe('inspection', () => {
  it('lists by status with pagination and answers 404 and 400 where due', async () => {
    hooks.respondWith(() => 204);
    for (let i = 0; i < 3; i++) await freshEvent();
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = (await s.admin('GET', `/webhook-events?status=delivered&limit=2${cursor ? `&cursor=${cursor}` : ''}`)).body;
      expect(page.items.length).toBeLessThanOrEqual(2);
      ids.push(...page.items.map((e: { id: string }) => e.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThanOrEqual(3);
    expect((await s.admin('GET', '/webhook-events/nope')).status).toBe(404);
    expect((await s.admin('POST', '/webhook-events/nope/redeliver')).status).toBe(404);
    expect((await s.admin('GET', '/webhook-events?status=lost')).status).toBe(400);
    expect((await s.admin('GET', '/webhook-events?type=nope')).status).toBe(400);
  });

  it('lists every event newest first, or those of one type or one resource, with no empty last page', async () => {
    hooks.respondWith(() => 204);
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, incomingAmount: { value: '100', assetCode: 'USD', assetScale: 2 } }));
    await ok(s.admin('POST', `/payment-intents/${intent.id}/complete`), 200);
    await hooks.waitForEvent('payment_intent.completed', (d) => d.id === intent.id);
    const all = async (query: string) => {
      const items: any[] = [];
      let cursor: string | null = null;
      do {
        const page: any = await ok(s.admin('GET', `/webhook-events?limit=3${query}${cursor ? `&cursor=${cursor}` : ''}`), 200);
        expect(page.items.length).toBeGreaterThan(0); // never an empty page
        items.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor);
      return items;
    };
    const every = await all('');
    const times = every.map((e) => e.createdAt);
    expect(times).toEqual([...times].sort().reverse());
    expect(new Set(every.map((e) => e.status)).size).toBeGreaterThan(1); // delivered and failed ones, from the tests above
    const mine = await all(`&resourceId=${intent.id}`);
    expect(mine.map((e) => e.type)).toEqual(['payment_intent.completed', 'payment_intent.created']);
    const completed = await all('&type=payment_intent.completed');
    expect(completed.every((e) => e.type === 'payment_intent.completed')).toBe(true);
    expect(completed.map((e) => e.data.id)).toContain(intent.id);
    expect(await all(`&type=payment_intent.created&resourceId=${intent.id}&status=delivered`)).toHaveLength(1);
  });

  it('finds the events of one type or one resource, with a status or not, newest first, page by page to the end', async () => {
    const tag = Math.random();
    hooks.respondWith(() => 204);
    const other = await freshEvent(); // a creation delivered, before the one below
    await waitFor('the other creation to be recorded', async () => ((await record(other)).status === 'delivered' ? true : undefined));
    // The intent's creation is refused (410: failed at once), its completion delivered.
    hooks.respondWith((d) => (d.event.type === 'payment_intent.created' && d.event.data.metadata?.tag === tag ? 410 : 204));
    const intent = await ok(
      s.admin('POST', '/payment-intents', { walletAddress: w.bob, incomingAmount: { value: '100', assetCode: 'USD', assetScale: 2 }, metadata: { tag } }),
    );
    await ok(s.admin('POST', `/payment-intents/${intent.id}/complete`), 200);
    const created = await waitFor('the created event to fail', async () => {
      const e = hooks.deliveries.find((d) => d.event.type === 'payment_intent.created' && d.event.data.id === intent.id)?.event;
      return e && (await record(e.id)).status === 'failed' ? e.id : undefined;
    });
    const completed = (await hooks.waitForEvent('payment_intent.completed', (d) => d.id === intent.id)).id;
    await waitFor('the completed event to be recorded', async () => ((await record(completed)).status === 'delivered' ? true : undefined));
    const pages = async (query: string) => {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const page: any = await ok(s.admin('GET', `/webhook-events?limit=1&${query}${cursor ? `&cursor=${cursor}` : ''}`), 200);
        expect(page.items.length).toBeLessThanOrEqual(1);
        ids.push(...page.items.map((e: { id: string }) => e.id));
        cursor = page.nextCursor;
      } while (cursor);
      return ids;
    };
    const resource = `resourceId=${intent.id}`;
    // (Found by its resource through an index, which DynamoDB fills a moment after the record is written.)
    await waitFor('both events to be found by their resource', async () => ((await pages(resource)).length === 2 ? true : undefined));
    expect(await pages(resource)).toEqual([completed, created]);
    expect(await pages(`${resource}&status=failed`)).toEqual([created]);
    expect(await pages(`${resource}&status=delivered`)).toEqual([completed]);
    expect(await pages(`${resource}&type=payment_intent.created`)).toEqual([created]);
    expect(await pages(`${resource}&type=payment_intent.created&status=delivered`)).toEqual([]);

    // By type: the failed creations are few among all, and found through the type's partition.
    const failedCreations = await pages('type=payment_intent.created&status=failed');
    expect(failedCreations).toContain(created);
    expect(failedCreations).not.toContain(other);
    for (const id of failedCreations) expect(await record(id)).toMatchObject({ type: 'payment_intent.created', status: 'failed' });
    const creations = await pages('type=payment_intent.created');
    expect(creations.indexOf(created)).toBeLessThan(creations.indexOf(other));
    expect(creations.indexOf(other)).toBeGreaterThan(0);
    const times = await Promise.all(creations.map(async (id) => (await record(id)).createdAt));
    expect(times).toEqual([...times].sort().reverse());

    // A redelivery moves the event in both look-ups.
    hooks.respondWith(() => 204);
    expect((await s.admin('POST', `/webhook-events/${created}/redeliver`)).status).toBe(202);
    await waitFor('the redelivery', async () => ((await record(created)).status === 'delivered' ? true : undefined));
    expect(await pages(`${resource}&status=delivered`)).toEqual([completed, created]);
    expect(await pages(`${resource}&status=failed`)).toEqual([]);
    expect(await pages('type=payment_intent.created&status=failed')).not.toContain(created);

    expect((await s.admin('GET', `/webhook-events/${created}%23resource`)).status).toBe(404); // a lookup item is no event
    const bad = await s.admin('GET', `/webhook-events?${resource}&cursor=bm9wZQ`);
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_cursor');
  });
});
