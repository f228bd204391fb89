import { generateKeyPairSync } from 'node:crypto';
import { generateJwk } from '@interledger/http-signature-utils';
import { type AuthenticatedClient, createAuthenticatedClient, isFinalizedGrantWithAccessToken, isPendingGrant } from '@interledger/open-payments';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { paymentIdOf } from '../../lib/payments';
import { consentViaIdp } from '../browser/consent';
import { startTestStack, type TestStack } from '../harness/stack';
import { ok, paymentIn, waitFor } from '../harness/world';
import { startWebhookReceiver, TEST_WEBHOOK_SECRET, type WebhookReceiver } from '../servers/webhook-receiver';

// Outgoing payments created by an app over Open Payments, driven by the official client: an
// interactive grant consented through the IdP interface, the payment created from a quote or from
// an incoming payment and a debit amount, funded by the FSP as any payment, and the grant's limits
// enforced (totals, intervals, receiver, races, giving back on cancel). The browser consent and the
// two-node flow are in op-apps.test.ts.
let s: TestStack;
let events: WebhookReceiver;
const wallet: Record<string, { id: string; address: string }> = {};
let app: AuthenticatedClient;
let otherApp: AuthenticatedClient;

const usd = (value: string) => ({ value, assetCode: 'USD', assetScale: 2 });
const failure = (p: Promise<unknown>) =>
  p.then(
    () => ({ status: 0, code: 'none' }),
    (e) => ({ status: e.status as number, code: e.code as string }),
  );

async function newApp(owner: string, keyId: string): Promise<AuthenticatedClient> {
  const { privateKey } = generateKeyPairSync('ed25519');
  await ok(s.admin('POST', `/wallet-addresses/${wallet[owner].id}/keys`, generateJwk({ privateKey, keyId })));
  return createAuthenticatedClient({ walletAddressUrl: wallet[owner].address, privateKey, keyId, validateResponses: true });
}

// An access token for `access`, with the wallet owner's consent given through the IdP interface.
async function consented(c: AuthenticatedClient, access: object[]) {
  const grant = await c.grant.request(
    { url: s.authServerUrl },
    {
      access_token: { access: access as never },
      interact: { start: ['redirect'], finish: { method: 'redirect', uri: 'http://localhost:9/finish', nonce: 'app-nonce' } },
    },
  );
  if (!isPendingGrant(grant)) throw new Error('expected a pending grant');
  const { finish } = await consentViaIdp(grant.interact.redirect, 'accept');
  const interactRef = finish?.searchParams.get('interact_ref');
  if (!interactRef) throw new Error(`expected an interact_ref, got ${finish}`);
  const done = await c.grant.continue({ url: grant.continue.uri, accessToken: grant.continue.access_token.value }, { interact_ref: interactRef });
  if (!isFinalizedGrantWithAccessToken(done)) throw new Error('expected a token');
  return done.access_token;
}

const outgoing = (identifier: string, limits?: object, actions = ['create', 'read', 'list']) => ({
  type: 'outgoing-payment',
  actions,
  identifier,
  ...(limits && { limits }),
});

async function incomingOn(owner: string, value?: string) {
  return ok(s.admin('POST', '/payment-intents', { walletAddress: wallet[owner].address, ...(value && { incomingAmount: usd(value) }) }));
}

async function quoteFor(c: AuthenticatedClient, receiverUrl: string, debit: string) {
  const token = await c.grant.request({ url: s.authServerUrl }, { access_token: { access: [{ type: 'quote', actions: ['create', 'read'] }] } } as never);
  if (!isFinalizedGrantWithAccessToken(token)) throw new Error('expected a quote grant at once');
  return c.quote.create(
    { url: s.openPaymentsUrl, accessToken: token.access_token.value },
    { walletAddress: wallet.alice.address, receiver: receiverUrl, method: 'ilp', debitAmount: usd(debit) },
  );
}

// An app's grant to pay up to `limit` from Alice's wallet address, and its payments of a debit amount
// to one incoming payment of the shop's.
async function payingUpTo(limit: string) {
  const token = await consented(app, [outgoing(wallet.alice.address, { debitAmount: usd(limit) })]);
  const access = { url: s.openPaymentsUrl, accessToken: token.value };
  const intent = await incomingOn('shop');
  const pay = (value: string) =>
    app.outgoingPayment.create(access, { walletAddress: wallet.alice.address, incomingPayment: intent.url, debitAmount: usd(value) });
  return { token, access, pay };
}

const paymentsOf = async (owner: string) =>
  (await ok(s.admin('GET', `/payments?walletAddress=${encodeURIComponent(wallet[owner].address)}&limit=100`), 200)).items;

beforeAll(async () => {
  events = await startWebhookReceiver();
  s = await startTestStack({
    EXCHANGE_RATES_URL: '',
    WEBHOOK_URL: events.url,
    WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
    IDP_CONSENT_URL: 'http://localhost:9/consent',
  });
  await ok(s.admin('POST', '/assets', { code: 'USD', scale: 2 }));
  for (const name of ['alice', 'bob', 'shop', 'demo-app']) {
    const created = await ok(s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/${name}`, assetCode: 'USD', publicName: name }));
    wallet[name] = { id: created.id, address: created.address };
  }
  app = await newApp('demo-app', 'app-key');
  otherApp = await newApp('bob', 'bob-key');
});
afterAll(async () => {
  await s.stop();
  await events.stop();
});

describe('an app that pays from a user’s wallet', () => {
  it('creates a payment from its quote; the FSP sees it with its grant and client, funds it, and it completes', async () => {
    const intent = await incomingOn('shop', '2500');
    const quote = await quoteFor(app, intent.url, '2500');
    const token = await consented(app, [outgoing(wallet.alice.address, { debitAmount: usd('5000') })]);
    const access = { url: s.openPaymentsUrl, accessToken: token.value };

    const created = await app.outgoingPayment.create(access, { walletAddress: wallet.alice.address, quoteId: quote.id, metadata: { order: 'A-1' } });
    expect(created).toMatchObject({
      walletAddress: wallet.alice.address,
      quoteId: quote.id,
      receiver: intent.url,
      failed: false,
      debitAmount: usd('2500'),
      receiveAmount: usd('2500'),
      sentAmount: usd('0'),
      grantSpentDebitAmount: usd('2500'),
      grantSpentReceiveAmount: usd('2500'),
      metadata: { order: 'A-1' },
    });
    const id = created.id.split('/').pop()!;
    expect(created.id).toBe(`${s.openPaymentsUrl}/outgoing-payments/${id}`);
    expect(id).toBe(paymentIdOf(quote.id.split('/').pop()!)); // named by its quote, whose put takes it (issue 46)

    // One pipeline: the Admin API and the webhook see the payment, with the app that made it.
    const announced = await events.waitForEvent('payment.created', (d) => d.id === id);
    expect(announced.data).toMatchObject({ state: 'funding', grantId: expect.any(String), client: wallet['demo-app'].address });
    await ok(s.admin('POST', `/payments/${id}/fund`), 200);
    await paymentIn(s, id, ['completed']);
    expect((await ok(s.admin('GET', `/payments/${id}`), 200)).grantId).toBe(announced.data.grantId);

    const read = await app.outgoingPayment.get({ url: created.id, accessToken: token.value });
    expect(read).toMatchObject({ id: created.id, failed: false, sentAmount: usd('2500') });
    expect(read).not.toHaveProperty('grantSpentDebitAmount');
    expect((await ok(s.admin('GET', `/payment-intents/${intent.id}`), 200)).state).toBe('completed');
    expect(await app.outgoingPayment.getGrantSpentAmounts(access)).toEqual({ spentDebitAmount: usd('2500'), spentReceiveAmount: usd('2500') });

    // The quote pays once.
    expect(await failure(app.outgoingPayment.create(access, { walletAddress: wallet.alice.address, quoteId: quote.id }))).toMatchObject({ status: 409 });
  });

  it('pays an incoming payment a debit amount, its quote priced with it; lists its payments page by page', async () => {
    const token = await consented(app, [outgoing(wallet.alice.address)]);
    const access = { url: s.openPaymentsUrl, accessToken: token.value };
    const made: string[] = [];
    let pricedQuote = '';
    for (const value of ['100', '200', '300']) {
      const intent = await incomingOn('shop');
      const p = await app.outgoingPayment.create(access, { walletAddress: wallet.alice.address, incomingPayment: intent.url, debitAmount: usd(value) });
      expect(p).toMatchObject({ debitAmount: usd(value), receiveAmount: usd(value), receiver: intent.url, quoteId: expect.stringContaining('/quotes/') });
      expect(p.id.split('/').pop()).toBe(paymentIdOf(p.quoteId!.split('/').pop()!));
      pricedQuote = p.quoteId!;
      made.push(p.id);
    }
    // Its quote, priced for it alone, is taken by it: paying that quote again is 409.
    expect(await failure(app.outgoingPayment.create(access, { walletAddress: wallet.alice.address, quoteId: pricedQuote }))).toEqual({
      status: 409,
      code: 'quote_used',
    });
    // Newest first, a page at a time, both ways.
    const list = (q: object) => app.outgoingPayment.list({ url: s.openPaymentsUrl, walletAddress: wallet.alice.address, accessToken: token.value }, q as never);
    const first = await list({ first: 2 });
    expect(first.result.map((p) => p.id)).toEqual([made[2], made[1]]);
    expect(first.pagination).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const second = await list({ first: 2, cursor: first.pagination.endCursor });
    expect(second.result.map((p) => p.id)).toContain(made[0]);
    expect(second.pagination.hasPreviousPage).toBe(true);
    const back = await list({ last: 2, cursor: second.pagination.startCursor });
    expect(back.result.map((p) => p.id)).toEqual([made[2], made[1]]);
    // `list` reaches only the payments of the app that asks: another app sees none of these.
    const others = await consented(otherApp, [outgoing(wallet.alice.address, undefined, ['create', 'read', 'list'])]);
    const theirs = await otherApp.outgoingPayment.list({ url: s.openPaymentsUrl, walletAddress: wallet.alice.address, accessToken: others.value }, {
      first: 10,
    } as never);
    expect(theirs.result).toEqual([]);
    expect(theirs.pagination).toEqual({ hasNextPage: false, hasPreviousPage: false });
    expect(await failure(otherApp.outgoingPayment.get({ url: made[0], accessToken: others.value }))).toMatchObject({ status: 403 });
  });

  // Issue 28: whatever a grant holds, no token shows another client's metadata.
  it('shows another app’s (and the FSP’s) payments to read-all and list-all without their metadata; its own with it', async () => {
    const token = await consented(app, [outgoing(wallet.alice.address)]);
    const intent = await incomingOn('shop');
    const mine = await app.outgoingPayment.create(
      { url: s.openPaymentsUrl, accessToken: token.value },
      { walletAddress: wallet.alice.address, incomingPayment: intent.url, debitAmount: usd('100'), metadata: { note: 'the app’s own' } },
    );
    const fsp = await ok(
      s.admin('POST', '/payments', {
        walletAddress: wallet.alice.address,
        quoteId: (await ok(s.admin('POST', '/quotes', { walletAddress: wallet.alice.address, receiver: (await incomingOn('shop', '100')).id }))).id,
        metadata: { note: 'the FSP’s' },
      }),
    );
    const all = await consented(otherApp, [outgoing(wallet.alice.address, undefined, ['read-all', 'list-all'])]);
    const read = await otherApp.outgoingPayment.get({ url: mine.id, accessToken: all.value });
    expect(read).toMatchObject({ id: mine.id, debitAmount: usd('100') });
    expect(read).not.toHaveProperty('metadata');
    const listed = await otherApp.outgoingPayment.list({ url: s.openPaymentsUrl, walletAddress: wallet.alice.address, accessToken: all.value }, {
      first: 100,
    } as never);
    const ids = listed.result.map((p) => p.id);
    expect(ids).toContain(mine.id);
    expect(ids).toContain(`${s.openPaymentsUrl}/outgoing-payments/${fsp.id}`);
    expect(listed.result.filter((p) => p.metadata)).toEqual([]);
    expect(await app.outgoingPayment.get({ url: mine.id, accessToken: token.value })).toMatchObject({ metadata: { note: 'the app’s own' } });
  });

  // Issue 28: URLs compared canonically everywhere. An upper-case quote URL was 422 quote_not_found,
  // an upper-case receiver 400.
  it('takes a quote’s and an incoming payment’s URL however spelled (case, a trailing slash)', async () => {
    const token = await consented(app, [outgoing(wallet.alice.address)]);
    const access = { url: s.openPaymentsUrl, accessToken: token.value };
    const shout = (url: string) => url.toUpperCase().replace('HTTP://', 'http://');
    const intent = await incomingOn('shop', '100');
    const quote = await quoteFor(app, `${shout(intent.url)}/`, '100');
    expect(quote.receiver).toBe(intent.url);
    const paid = await app.outgoingPayment.create(access, { walletAddress: wallet.alice.address, quoteId: shout(quote.id) });
    expect(paid).toMatchObject({ quoteId: quote.id, receiver: intent.url });
  });

  it('refuses a payment over the grant’s debit limit, 403, creating nothing; a cancelled payment gives its amount back', async () => {
    const { access, pay } = await payingUpTo('1000');
    const firstPayment = await pay('600');
    expect(firstPayment.grantSpentDebitAmount).toEqual(usd('600'));
    const before = (await paymentsOf('alice')).length;
    expect(await failure(pay('600'))).toEqual({ status: 403, code: 'insufficient_grant' });
    expect(await failure(pay('1001'))).toEqual({ status: 403, code: 'insufficient_grant' });
    expect((await paymentsOf('alice')).length).toBe(before);
    expect(await app.outgoingPayment.getGrantSpentAmounts(access)).toMatchObject({ spentDebitAmount: usd('600') });

    // The FSP cancels the first: its amount is back, and a payment of the whole limit fits.
    await ok(s.admin('POST', `/payments/${firstPayment.id.split('/').pop()}/cancel`), 200);
    expect(await app.outgoingPayment.getGrantSpentAmounts(access)).toMatchObject({ spentDebitAmount: usd('0') });
    expect((await pay('1000')).grantSpentDebitAmount).toEqual(usd('1000'));
  });

  it('gives its grant back what a payment charged when the service cancels it, its quote expired unfunded', async () => {
    const { token, access, pay } = await payingUpTo('1000');
    const payment = await pay('700');
    expect(await failure(pay('700'))).toEqual({ status: 403, code: 'insufficient_grant' });
    // The FSP never funds it. Past its quote's expiry (QUOTE_LIFETIME_SECS, 300 s; a faked clock),
    // the scheduled sweeper cancels it.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 301_000);
      expect(await s.invoke('paymentsExpire')).toBeGreaterThanOrEqual(1);
    } finally {
      vi.useRealTimers();
    }
    const id = payment.id.split('/').pop();
    expect(await ok(s.admin('GET', `/payments/${id}`), 200)).toMatchObject({ state: 'cancelled', cancelReason: 'quote_expired' });
    expect(await app.outgoingPayment.get({ url: payment.id, accessToken: token.value })).toMatchObject({ failed: true, sentAmount: usd('0') });
    expect(await app.outgoingPayment.getGrantSpentAmounts(access)).toMatchObject({ spentDebitAmount: usd('0') });
    expect((await pay('1000')).grantSpentDebitAmount).toEqual(usd('1000'));
  });

  it('shows a payment that could not be sent as failed, and gives its amount back to the grant', async () => {
    const token = await consented(app, [outgoing(wallet.alice.address, { debitAmount: usd('1000') })]);
    const access = { url: s.openPaymentsUrl, accessToken: token.value };
    const intent = await incomingOn('shop', '700');
    const payment = await app.outgoingPayment.create(access, { walletAddress: wallet.alice.address, incomingPayment: intent.url, debitAmount: usd('700') });
    // The shop closes the incoming payment before the FSP funds the payment: delivery fails.
    await ok(s.admin('POST', `/payment-intents/${intent.id}/complete`), 200);
    await ok(s.admin('POST', `/payments/${payment.id.split('/').pop()}/fund`), 200);
    await paymentIn(s, payment.id.split('/').pop()!, ['failed']);
    expect(await app.outgoingPayment.get({ url: payment.id, accessToken: token.value })).toMatchObject({ failed: true, sentAmount: usd('0') });
    expect(await app.outgoingPayment.getGrantSpentAmounts(access)).toMatchObject({ spentDebitAmount: usd('0') });
  });

  it('lets exactly one of two racing payments through a limit that holds one', async () => {
    const token = await consented(app, [outgoing(wallet.alice.address, { debitAmount: usd('1000') })]);
    const access = { url: s.openPaymentsUrl, accessToken: token.value };
    const intent = await incomingOn('shop');
    const results = await Promise.all(
      [0, 1, 2, 3].map(() =>
        failure(app.outgoingPayment.create(access, { walletAddress: wallet.alice.address, incomingPayment: intent.url, debitAmount: usd('600') })),
      ),
    );
    expect(results.filter((r) => r.status === 0)).toHaveLength(1);
    expect(results.filter((r) => r.status === 403)).toHaveLength(3);
    expect(await app.outgoingPayment.getGrantSpentAmounts(access)).toMatchObject({ spentDebitAmount: usd('600') });
  });

  it('counts an interval’s spending in its interval only, and holds a grant to its receiver', async () => {
    const start = new Date(Date.now() - 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    const token = await consented(app, [outgoing(wallet.alice.address, { debitAmount: usd('500'), interval: `R/${start}/PT4S` })]);
    const access = { url: s.openPaymentsUrl, accessToken: token.value };
    const intent = await incomingOn('shop');
    const pay = (value: string) =>
      app.outgoingPayment.create(access, { walletAddress: wallet.alice.address, incomingPayment: intent.url, debitAmount: usd(value) });
    const periodOf = () => Math.floor((Date.now() - Date.parse(start)) / 4000);
    // Far enough from the period's end that both land in it.
    await waitFor('the first half of a period', async () => (Date.now() - Date.parse(start)) % 4000 < 2000 || undefined, 5000);
    const period = periodOf();
    await pay('500');
    expect(await failure(pay('100'))).toEqual({ status: 403, code: 'insufficient_grant' });
    expect(periodOf()).toBe(period);
    await waitFor('the next period', async () => periodOf() > period || undefined, 6000);
    expect((await pay('500')).grantSpentDebitAmount).toEqual(usd('500'));

    const one = await incomingOn('shop');
    const tied = await consented(app, [outgoing(wallet.alice.address, { receiver: one.url })]);
    const other = await incomingOn('shop');
    const to = (url: string) =>
      app.outgoingPayment.create(
        { url: s.openPaymentsUrl, accessToken: tied.value },
        { walletAddress: wallet.alice.address, incomingPayment: url, debitAmount: usd('100') },
      );
    expect(await failure(to(other.url))).toEqual({ status: 403, code: 'insufficient_grant' });
    expect((await to(one.url)).receiver).toBe(one.url);
  });

  it('refuses another wallet, another app’s quote, a revoked token and bad input, creating nothing', async () => {
    const token = await consented(app, [outgoing(wallet.alice.address)]);
    const access = { url: s.openPaymentsUrl, accessToken: token.value };
    const intent = await incomingOn('shop', '100');
    const before = (await paymentsOf('alice')).length;
    // A token for Alice's wallet cannot pay from Bob's.
    expect(
      await failure(app.outgoingPayment.create(access, { walletAddress: wallet.bob.address, incomingPayment: intent.url, debitAmount: usd('100') })),
    ).toMatchObject({ status: 403 });
    // Another app's quote, and the FSP's own, are not this app's to spend.
    const theirQuote = await quoteFor(otherApp, intent.url, '100');
    expect(await failure(app.outgoingPayment.create(access, { walletAddress: wallet.alice.address, quoteId: theirQuote.id }))).toMatchObject({ status: 403 });
    const fspQuote = await ok(s.admin('POST', '/quotes', { walletAddress: wallet.alice.address, receiver: intent.url, debitAmount: usd('100') }));
    expect(await failure(app.outgoingPayment.create(access, { walletAddress: wallet.alice.address, quoteId: fspQuote.id }))).toMatchObject({ status: 403 });

    const raw = (body: unknown) =>
      fetch(`${s.openPaymentsUrl}/outgoing-payments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `GNAP ${token.value}` },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    for (const body of [
      '',
      '{',
      [],
      { walletAddress: wallet.alice.address },
      { walletAddress: wallet.alice.address, quoteId: theirQuote.id, debitAmount: usd('1') },
      { walletAddress: wallet.alice.address, incomingPayment: 'https://x.example/nope', debitAmount: usd('1') },
      { walletAddress: wallet.alice.address, incomingPayment: intent.url, debitAmount: { value: '-1', assetCode: 'USD', assetScale: 2 } },
      { walletAddress: wallet.alice.address, incomingPayment: intent.url },
    ]) {
      const res = await raw(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers.get('content-type'), JSON.stringify(body)).toMatch(/problem\+json/);
    }
    for (const path of ['/outgoing-payments/not-a-uuid', `/outgoing-payments/${'x'.repeat(2000)}`, '/outgoing-payments/00000000-0000-4000-8000-000000000000']) {
      expect((await fetch(`${s.openPaymentsUrl}${path}`, { headers: { authorization: `GNAP ${token.value}` } })).status, path).toBe(404);
    }
    for (const query of ['', '?wallet-address=x&first=0', '?wallet-address=x&first=101', '?wallet-address=x&first=1&last=1', '?wallet-address=x&cursor=%%%']) {
      expect((await fetch(`${s.openPaymentsUrl}/outgoing-payments${query}`, { headers: { authorization: `GNAP ${token.value}` } })).status, query).toBe(400);
    }
    expect((await paymentsOf('alice')).length).toBe(before);

    // A revoked token is 401 everywhere.
    await app.token.revoke({ url: token.manage, accessToken: token.value });
    expect(
      await failure(app.outgoingPayment.create(access, { walletAddress: wallet.alice.address, incomingPayment: intent.url, debitAmount: usd('100') })),
    ).toMatchObject({ status: 401 });
    expect(await failure(app.outgoingPayment.getGrantSpentAmounts(access))).toMatchObject({ status: 401 });
  });
});
