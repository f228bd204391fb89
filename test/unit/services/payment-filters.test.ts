import { beforeAll, describe, expect, it } from 'vitest';
import { createIntent } from '../../../lib/payment-intents';
import { createPayment, listPayments } from '../../../lib/payments';
import { createQuote } from '../../../lib/payments/methods/quote';
import { listPaymentsQuery } from '../../../lib/payments/schemas';
import { intentUrl } from '../../../lib/shared/resources';
import { inMemory, memoryWorld, refusal } from '../../harness/in-memory';

// GET /payments's filters in memory: by receiver (an intent's URL or id), by a metadata key's
// value, by a window of creation times, each alone and with the sender's wallet address, page by
// page; and the query's refusals, each naming its parameter.
const mem = inMemory({}, { fresh: 'file' });
let w: Awaited<ReturnType<typeof memoryWorld>>;
beforeAll(async () => {
  w = await memoryWorld(mem);
});
const usd = (value: string) => ({ value, assetCode: 'USD', assetScale: 2 });
// Each payment in a millisecond of its own (the clock let move past it), so that newest first is one order.
async function pay(from: string, intentId: string, metadata?: Record<string, unknown>) {
  const quote = await createQuote(mem.node, { walletAddress: from, receiver: intentId, debitAmount: usd('100') } as never);
  const payment = await createPayment(mem.node, { walletAddress: from, quoteId: quote.id, ...(metadata && { metadata }) } as never);
  while (Date.now() <= Date.parse(payment.createdAt)) await new Promise((r) => setImmediate(r));
  return payment;
}
const ids = async (query: Record<string, string>) => {
  const found: string[] = [];
  for (let cursor: string | undefined, first = true; first || cursor; first = false) {
    const page = await listPayments(mem.node, listPaymentsQuery.parse({ ...query, limit: '2', ...(cursor && { cursor }) }));
    found.push(...page.items.map((p) => p.id));
    cursor = page.nextCursor ?? undefined;
  }
  return found;
};

describe('the payments list', () => {
  it('filters by receiver, by a metadata value and by creation time, alone or with the sender', async () => {
    const [bob, carlos] = [await createIntent(mem.node, { walletAddress: w.bob } as never), await createIntent(mem.node, { walletAddress: w.carlos } as never)];
    const a1 = await pay(w.alice, bob.id, { order: '42' });
    // A time after a1's, before a2's: the clock is let move past it first.
    const between = new Date(Date.parse(a1.createdAt) + 1).toISOString();
    while (Date.now() <= Date.parse(between)) await new Promise((r) => setImmediate(r));
    const a2 = await pay(w.alice, carlos.id, { order: '43', nested: { order: '42' } });
    const b1 = await pay(w.bob, carlos.id, { order: '42', note: 'x' });
    const c1 = await pay(w.bob, bob.id);
    const after = new Date(Date.parse(c1.createdAt) + 1).toISOString();
    // Newest first, page by page.
    expect(await ids({ receiver: intentUrl(mem.node, carlos.id) })).toEqual([b1.id, a2.id]);
    expect(await ids({ receiver: bob.id })).toEqual([c1.id, a1.id]); // this node's intent by its id
    expect(await ids({ receiver: 'https://elsewhere.example/incoming-payments/1' })).toEqual([]);
    // The key at the top level, at a string value: not a nested one, nor another key's.
    expect(await ids({ metadataKey: 'order', metadataValue: '42' })).toEqual([b1.id, a1.id]);
    expect(await ids({ metadataKey: 'note', metadataValue: '42' })).toEqual([]);
    expect(await ids({ from: between })).toEqual([c1.id, b1.id, a2.id]);
    expect(await ids({ from: between, to: after, receiver: bob.id })).toEqual([c1.id]);
    expect(await ids({ to: between })).toEqual(expect.arrayContaining([a1.id]));
    expect(await ids({ to: between })).not.toContain(a2.id);
    // With the sender: its records' own partitions.
    expect(await ids({ walletAddress: w.alice, metadataKey: 'order', metadataValue: '42' })).toEqual([a1.id]);
    expect(await ids({ walletAddress: w.alice, receiver: carlos.id, state: 'funding' })).toEqual([a2.id]);
  });

  it('refuses a bad filter with a 400 that names its parameter', async () => {
    const bad = (query: Record<string, string>) => refusal(Promise.resolve().then(() => listPayments(mem.node, listPaymentsQuery.parse(query))));
    const problem = (query: Record<string, string>) => listPaymentsQuery.safeParse(query).error?.issues.map((i) => i.path.join('.'));
    expect(problem({ metadataKey: 'order' })).toEqual(['metadataValue']);
    expect(problem({ metadataValue: '42' })).toEqual(['metadataKey']);
    expect(problem({ from: 'yesterday' })).toEqual(['from']);
    expect(problem({ from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' })).toEqual(['to']);
    expect(problem({ receiver: '' })).toEqual(['receiver']);
    expect(await bad({ receiver: 'not a receiver' })).toBe('400 invalid_request');
  });
});
