import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestStack } from '../harness/stack';
import { createFlow, ok, paymentIn, startPaymentsStack, type World } from '../harness/world';

// The Admin lists of wallet addresses, payments and payment intents: newest first, filtered, and
// paged through their cursors to the end.
let s: TestStack;
let w: World;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ s, w, stop } = await startPaymentsStack());
});
afterAll(() => stop());

const query = (params: Record<string, string>) => new URLSearchParams(params).toString();

// Every page of a list at `limit`, following nextCursor to the end; each page but the last is full.
async function everyPage(path: string, limit: number) {
  const items: any[] = [];
  let pages = 0;
  for (let cursor: string | null = null; pages === 0 || cursor; pages++) {
    const page: any = await ok(s.admin('GET', `${path}${path.includes('?') ? '&' : '?'}${query({ limit: String(limit), ...(cursor && { cursor }) })}`), 200);
    expect(page.items.length).toBeLessThanOrEqual(limit);
    if (page.nextCursor) expect(page.items).toHaveLength(limit);
    items.push(...page.items);
    cursor = page.nextCursor;
  }
  expect(new Set(items.map((i) => i.id)).size, 'each item once').toBe(items.length);
  return { items, pages };
}

// The ids of a whole list (its items of `among`, in the list's order).
const idsOf = async (path: string, among: string[]) => (await everyPage(path, 100)).items.map((i) => i.id as string).filter((id) => among.includes(id));

const problemAt = (res: Awaited<ReturnType<TestStack['admin']>>, field: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
};
const forgedCursor = Buffer.from(JSON.stringify({ pk: 'PAYMENT#x', sk: 'PAYMENT' })).toString('base64url');

describe('GET /wallet-addresses', () => {
  it('lists every wallet address newest first, a page at a time, each as GET /wallet-addresses/{id} answers it', async () => {
    const created: Array<{ id: string }> = [];
    for (const name of ['list1', 'list2', 'list3', 'list4', 'list5'])
      created.push(await ok(s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/${name}`, assetCode: 'USD', publicName: name })));
    const { items, pages } = await everyPage('/wallet-addresses', 2);
    expect(pages).toBeGreaterThanOrEqual(4);
    const ids = items.map((i) => i.id);
    expect(ids.filter((id) => created.some((c) => c.id === id))).toEqual(created.map((c) => c.id).reverse());
    const world = (await Promise.all([w.alice, w.bob, w.carlos].map((a) => s.admin('GET', `/wallet-addresses?${query({ address: a })}`)))).map(
      (r) => r.body.id,
    );
    expect(ids.slice(-3)).toEqual(world.reverse()); // the world's, older than these
    expect(items.find((i) => i.id === created[2].id)).toEqual((await s.admin('GET', `/wallet-addresses/${created[2].id}`)).body);
  });

  it('with address, finds the one wallet address as before, in any letter case', async () => {
    const found = await ok(s.admin('GET', `/wallet-addresses?${query({ address: w.alice.toUpperCase() })}`), 200);
    expect(found).toEqual((await s.admin('GET', `/wallet-addresses/${found.id}`)).body);
    expect(found.address).toBe(w.alice);
    const none = await s.admin('GET', `/wallet-addresses?${query({ address: `${s.openPaymentsUrl}/nobody` })}`);
    expect([none.status, none.body.code]).toEqual([404, 'wallet_address_not_found']);
  });

  it('refuses limit or cursor with address, a bad limit or cursor, and unknown parameters with 400', async () => {
    problemAt(await s.admin('GET', `/wallet-addresses?${query({ address: w.alice, limit: '5' })}`), 'query.limit');
    problemAt(await s.admin('GET', `/wallet-addresses?${query({ address: w.alice, cursor: forgedCursor })}`), 'query.cursor');
    problemAt(await s.admin('GET', '/wallet-addresses?limit=0'), 'query.limit');
    const forged = await s.admin('GET', `/wallet-addresses?cursor=${forgedCursor}`);
    expect([forged.status, forged.body.code]).toEqual([400, 'invalid_cursor']);
    problemAt(await s.admin('GET', '/wallet-addresses?colour=red'), 'query.colour');
  });
});

describe('GET /payments', () => {
  // Created one after the other, so newest first is the reverse: funding, cancelled, completed
  // (Bob's), completed (to EUR), failed (its intent was completed before it was funded).
  const p: Record<string, any> = {};
  const usd = (value: string) => ({ value, assetCode: 'USD' });
  beforeAll(async () => {
    p.funding = (await createFlow(s, w.alice, w.bob, usd('100'))).payment;
    p.cancelled = (await createFlow(s, w.alice, w.bob, usd('101'))).payment;
    await ok(s.admin('POST', `/payments/${p.cancelled.id}/cancel`), 200);
    p.bobs = (await createFlow(s, w.bob, w.alice, usd('102'))).payment;
    await ok(s.admin('POST', `/payments/${p.bobs.id}/fund`), 200);
    p.euros = (await createFlow(s, w.alice, w.carlos, { value: '90', assetCode: 'EUR' })).payment;
    await ok(s.admin('POST', `/payments/${p.euros.id}/fund`), 200);
    const failing = await createFlow(s, w.alice, w.bob, usd('103'));
    p.failed = failing.payment;
    await ok(s.admin('POST', `/payment-intents/${failing.intent.id}/complete`), 200);
    await ok(s.admin('POST', `/payments/${p.failed.id}/fund`), 200);
    await Promise.all([paymentIn(s, p.bobs.id, ['completed']), paymentIn(s, p.euros.id, ['completed']), paymentIn(s, p.failed.id, ['failed'])]);
  });
  const ids = (...names: string[]) => names.map((n) => p[n].id);
  const all = () => Object.values(p).map((x) => x.id);

  it('lists every payment newest first, a page at a time, each as GET /payments/{id} answers it', async () => {
    const { items, pages } = await everyPage('/payments', 2);
    expect(pages).toBe(3);
    expect(items.map((i) => i.id)).toEqual(ids('failed', 'euros', 'bobs', 'cancelled', 'funding'));
    for (const item of items) expect(item).toEqual((await s.admin('GET', `/payments/${item.id}`)).body);
    expect(items[0]).toMatchObject({ state: 'failed', failureReason: 'payment_intent_completed' });
  });

  it('filters by state, a change of state moving a payment from one list to the next', async () => {
    expect(await idsOf('/payments?state=funding', all())).toEqual(ids('funding'));
    expect(await idsOf('/payments?state=cancelled', all())).toEqual(ids('cancelled'));
    expect(await idsOf('/payments?state=completed', all())).toEqual(ids('euros', 'bobs'));
    expect(await idsOf('/payments?state=failed', all())).toEqual(ids('failed'));
    expect((await everyPage('/payments?state=sending', 2)).items).toEqual([]);
    const { items, pages } = await everyPage('/payments?state=completed', 1);
    expect([items.map((i) => i.id), pages]).toEqual([ids('euros', 'bobs'), 2]);
  });

  it('filters by wallet address, in any letter case, and by both', async () => {
    const alices = ids('failed', 'euros', 'cancelled', 'funding');
    const { items, pages } = await everyPage(`/payments?${query({ walletAddress: w.alice })}`, 1);
    expect([items.map((i) => i.id), pages]).toEqual([alices, 4]);
    expect(await idsOf(`/payments?${query({ walletAddress: w.alice.toUpperCase() })}`, all())).toEqual(alices);
    expect(await idsOf(`/payments?${query({ walletAddress: w.bob })}`, all())).toEqual(ids('bobs'));
    expect(await idsOf(`/payments?${query({ walletAddress: w.carlos })}`, all())).toEqual([]);
    expect(await idsOf(`/payments?${query({ walletAddress: w.alice, state: 'completed' })}`, all())).toEqual(ids('euros'));
    expect(await idsOf(`/payments?${query({ walletAddress: w.alice, state: 'sending' })}`, all())).toEqual([]);
    const nobody = await ok(s.admin('GET', `/payments?${query({ walletAddress: `${s.openPaymentsUrl}/nobody` })}`), 200);
    expect(nobody).toEqual({ items: [], nextCursor: null });
  });

  it('refuses a bad wallet address, state, limit or cursor with 400, never a 500', async () => {
    for (const walletAddress of ['not a url', 'ftp://x/alice', 'http://evil.example/alice', `${s.openPaymentsUrl}/a%20b`, 'x'.repeat(600)]) {
      problemAt(await s.admin('GET', `/payments?${query({ walletAddress })}`), 'query.walletAddress');
    }
    problemAt(await s.admin('GET', '/payments?state=nope'), 'query.state');
    problemAt(await s.admin('GET', '/payments?state=COMPLETED'), 'query.state');
    problemAt(await s.admin('GET', '/payments?limit=101'), 'query.limit');
    // The cursor is checked before any read, whether or not the wallet address has a wallet.
    for (const walletAddress of [w.alice, `${s.openPaymentsUrl}/nobody`]) {
      const res = await s.admin('GET', `/payments?${query({ walletAddress, cursor: forgedCursor })}`);
      expect([res.status, res.body.code]).toEqual([400, 'invalid_cursor']);
    }
  });
});

describe('GET /payment-intents', () => {
  // On two wallet addresses of their own, one after the other: pending, completed by the FSP,
  // processing (paid a part), expired (past its expiry, whether or not the expirer has recorded
  // it), completed by a payment.
  const i: Record<string, any> = {};
  let dana: string;
  let erin: string;
  const intent = async (walletAddress: string, value: string, extra = {}) =>
    ok(s.admin('POST', '/payment-intents', { walletAddress, incomingAmount: { value, assetCode: 'USD', assetScale: 2 }, ...extra }));
  const pay = async (intentId: string, value: string) => {
    const quote = await ok(
      s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intentId, receiveAmount: { value, assetCode: 'USD', assetScale: 2 } }),
    );
    const payment = await ok(s.admin('POST', '/payments', { walletAddress: w.alice, quoteId: quote.id }));
    await ok(s.admin('POST', `/payments/${payment.id}/fund`), 200);
    await paymentIn(s, payment.id, ['completed']);
  };
  beforeAll(async () => {
    const wallet = async (name: string) =>
      (await ok(s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/${name}`, assetCode: 'USD' }))).address;
    dana = await wallet('dana');
    erin = await wallet('erin');
    i.pending = await intent(dana, '100');
    i.completed = await intent(dana, '200');
    await ok(s.admin('POST', `/payment-intents/${i.completed.id}/complete`), 200);
    i.processing = await intent(erin, '1000');
    await pay(i.processing.id, '300');
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    i.expired = await intent(dana, '400', { expiresAt });
    i.paid = await intent(erin, '500');
    await pay(i.paid.id, '500');
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(expiresAt) - Date.now() + 50)));
  });
  const ids = (...names: string[]) => names.map((n) => i[n].id);
  const all = () => Object.values(i).map((x) => x.id);

  it('lists every payment intent newest first, a page at a time, each as GET /payment-intents/{id} answers it', async () => {
    const { items } = await everyPage('/payment-intents', 2);
    const mine = items.filter((item) => all().includes(item.id));
    expect(mine.map((item) => item.id)).toEqual(ids('paid', 'expired', 'processing', 'completed', 'pending'));
    for (const item of mine) expect(item).toEqual((await s.admin('GET', `/payment-intents/${item.id}`)).body);
    expect(mine.map((item) => item.state)).toEqual(['completed', 'expired', 'processing', 'completed', 'pending']);
  });

  it('filters by state as each intent reads: an open intent past its expiry is expired, not pending', async () => {
    expect(await idsOf('/payment-intents?state=pending', all())).toEqual(ids('pending'));
    expect(await idsOf('/payment-intents?state=processing', all())).toEqual(ids('processing'));
    expect(await idsOf('/payment-intents?state=completed', all())).toEqual(ids('paid', 'completed'));
    expect(await idsOf('/payment-intents?state=expired', all())).toEqual(ids('expired'));
  });

  it('filters by wallet address (the listing Open Payments reads too), by state within it, and pages it', async () => {
    const { items, pages } = await everyPage(`/payment-intents?${query({ walletAddress: dana })}`, 1);
    expect([items.map((item) => item.id), pages]).toEqual([ids('expired', 'completed', 'pending'), 3]);
    expect(await idsOf(`/payment-intents?${query({ walletAddress: erin.toUpperCase() })}`, all())).toEqual(ids('paid', 'processing'));
    expect(await idsOf(`/payment-intents?${query({ walletAddress: dana, state: 'pending' })}`, all())).toEqual(ids('pending'));
    expect(await idsOf(`/payment-intents?${query({ walletAddress: dana, state: 'expired' })}`, all())).toEqual(ids('expired'));
    expect(await idsOf(`/payment-intents?${query({ walletAddress: erin, state: 'completed' })}`, all())).toEqual(ids('paid'));
    expect(await idsOf(`/payment-intents?${query({ walletAddress: erin, state: 'processing' })}`, all())).toEqual(ids('processing'));
    const nobody = await ok(s.admin('GET', `/payment-intents?${query({ walletAddress: `${s.openPaymentsUrl}/nobody`, state: 'pending' })}`), 200);
    expect(nobody).toEqual({ items: [], nextCursor: null });
  });

  it('refuses a bad wallet address, state, limit or cursor with 400, never a 500', async () => {
    problemAt(await s.admin('GET', `/payment-intents?${query({ walletAddress: 'http://evil.example/dana' })}`), 'query.walletAddress');
    problemAt(await s.admin('GET', `/payment-intents?${query({ walletAddress: '' })}`), 'query.walletAddress');
    problemAt(await s.admin('GET', '/payment-intents?state=open'), 'query.state');
    problemAt(await s.admin('GET', '/payment-intents?limit=1e1'), 'query.limit');
    const res = await s.admin('GET', `/payment-intents?${query({ walletAddress: dana, cursor: forgedCursor })}`);
    expect([res.status, res.body.code]).toEqual([400, 'invalid_cursor']);
  });
});
