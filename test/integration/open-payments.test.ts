import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { createHeaders, createSignatureHeaders, generateJwk } from '@interledger/http-signature-utils';
import {
  type AuthenticatedClient,
  createAuthenticatedClient,
  createUnauthenticatedClient,
  type GrantRequest,
  isFinalizedGrantWithAccessToken,
  isPendingGrant,
} from '@interledger/open-payments';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack';
import { ok } from '../harness/world';
import { startWebhookReceiver, TEST_WEBHOOK_SECRET, type WebhookReceiver } from '../servers/webhook-receiver';

// The service driven by the official Open Payments client, as another wallet or node would: a key
// registered on a wallet address, a grant from the authorization server, incoming payments on the
// resource server, every response validated against the Open Payments specification.
let s: TestStack;
let events: WebhookReceiver;
const wallet: Record<string, { id: string; address: string }> = {};

interface Client {
  api: AuthenticatedClient;
  privateKey: KeyObject;
  keyId: string;
  walletAddress: string;
}

async function newClient(owner: string, keyId: string): Promise<Client> {
  const { privateKey } = generateKeyPairSync('ed25519');
  await ok(s.admin('POST', `/wallet-addresses/${wallet[owner].id}/keys`, generateJwk({ privateKey, keyId })));
  const api = await createAuthenticatedClient({ walletAddressUrl: wallet[owner].address, privateKey, keyId, validateResponses: true });
  return { api, privateKey, keyId, walletAddress: wallet[owner].address };
}

const incomingAccess = (identifier: string, actions: string[]) => ({
  access_token: { access: [{ type: 'incoming-payment' as const, actions: actions as never, identifier }] },
});

async function issued(c: Client, request: Omit<GrantRequest, 'client'>) {
  const grant = await c.api.grant.request({ url: s.authServerUrl }, request as never);
  if (!isFinalizedGrantWithAccessToken(grant)) throw new Error('expected a grant issued at once, with a token');
  return grant;
}
const grantFor = (c: Client, identifier: string, actions = ['create', 'read', 'list', 'complete']) => issued(c, incomingAccess(identifier, actions));

const amount = (value: string) => ({ value, assetCode: 'USD', assetScale: 2 });
// What a client's error told: its HTTP status and the Open Payments error code.
const failure = (p: Promise<unknown>) =>
  p.then(
    () => ({ status: 0, code: 'none', description: '' }),
    (e) => ({ status: e.status, code: e.code, description: String(e.description) }),
  );

let alice: Client;

beforeAll(async () => {
  events = await startWebhookReceiver();
  s = await startTestStack({ EXCHANGE_RATES_URL: '', WEBHOOK_URL: events.url, WEBHOOK_SECRET: TEST_WEBHOOK_SECRET });
  await ok(s.admin('POST', '/assets', { code: 'USD', scale: 2 }));
  for (const name of ['alice', 'bob', 'carol']) {
    const created = await ok(s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/${name}`, assetCode: 'USD', publicName: name }));
    wallet[name] = { id: created.id, address: created.address };
  }
  alice = await newClient('alice', 'alice-key-1');
});
afterAll(async () => {
  await s.stop();
  await events.stop();
});
afterEach(() => vi.useRealTimers());

describe('an Open Payments client, end to end', () => {
  it('gets a grant, then creates, reads, lists and completes an incoming payment; the Admin API and the webhooks see the same record', async () => {
    const bob = await alice.api.walletAddress.get({ url: wallet.bob.address });
    expect(bob).toMatchObject({ id: wallet.bob.address, assetCode: 'USD', assetScale: 2, authServer: s.authServerUrl, resourceServer: s.openPaymentsUrl });
    const grant = await alice.api.grant.request({ url: bob.authServer }, incomingAccess(bob.id, ['create', 'read', 'list', 'complete']));
    if (!isFinalizedGrantWithAccessToken(grant)) throw new Error('expected a grant issued at once');
    expect(grant.access_token.expires_in).toBe(600);
    const accessToken = grant.access_token.value;

    const created = await alice.api.incomingPayment.create(
      { url: bob.resourceServer, accessToken },
      { walletAddress: bob.id, incomingAmount: amount('2500'), metadata: { invoice: 'INV-1' } },
    );
    expect(created).toMatchObject({
      walletAddress: bob.id,
      completed: false,
      incomingAmount: amount('2500'),
      receivedAmount: amount('0'),
      metadata: { invoice: 'INV-1' },
    });
    expect(created.id).toMatch(new RegExp(`^${s.openPaymentsUrl}/incoming-payments/[0-9a-f-]{36}$`));
    expect(created.methods).toEqual([
      { type: 'ilp', ilpAddress: expect.stringMatching(/^test\.node-a\.[A-Za-z0-9_-]+$/), sharedSecret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) },
    ]);

    const read = await alice.api.incomingPayment.get({ url: created.id, accessToken });
    expect(read).toMatchObject({ id: created.id, completed: false });
    // Fresh credentials at every read (a STREAM connection of their own), derived, never stored.
    expect(read.methods[0].ilpAddress).not.toBe(created.methods[0].ilpAddress);

    const listed = await alice.api.incomingPayment.list({ url: bob.resourceServer, walletAddress: bob.id, accessToken }, { first: 10 } as never);
    expect(listed.result.map((p) => p.id)).toContain(created.id);
    expect(listed.pagination.hasPreviousPage).toBe(false);

    const completed = await alice.api.incomingPayment.complete({ url: created.id, accessToken });
    expect(completed).toMatchObject({ id: created.id, completed: true });

    const id = created.id.split('/').pop()!;
    const intent = await ok(s.admin('GET', `/payment-intents/${id}`), 200);
    expect(intent).toMatchObject({
      id,
      url: created.id,
      walletAddress: bob.id,
      state: 'completed',
      incomingAmount: amount('2500'),
      metadata: { invoice: 'INV-1' },
    });
    await events.waitForEvent('payment_intent.created', (d) => d.id === id);
    await events.waitForEvent('payment_intent.completed', (d) => d.id === id);
  });

  it('shows anyone the public view, never the payment methods', async () => {
    const { access_token } = await grantFor(alice, wallet.bob.address);
    const created = await alice.api.incomingPayment.create({ url: s.openPaymentsUrl, accessToken: access_token.value }, { walletAddress: wallet.bob.address });
    const anyone = await createUnauthenticatedClient({ validateResponses: true });
    const view = await anyone.incomingPayment.get({ url: created.id });
    expect(view).toEqual({ receivedAmount: amount('0'), authServer: s.authServerUrl });
    const raw = await (await fetch(created.id)).json();
    expect(raw).not.toHaveProperty('methods');
    expect((await fetch(`${s.openPaymentsUrl}/incoming-payments/3f1c2b9e-8a47-4c51-9d0e-2b7a6f5e4d3c`)).status).toBe(404);
  });

  it('pages a long list with cursors, newest first, both ways', async () => {
    const { access_token } = await grantFor(alice, wallet.carol.address);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.unshift(
        (await alice.api.incomingPayment.create({ url: s.openPaymentsUrl, accessToken: access_token.value }, { walletAddress: wallet.carol.address })).id,
      );
    const list = (args: object) =>
      alice.api.incomingPayment.list({ url: s.openPaymentsUrl, walletAddress: wallet.carol.address, accessToken: access_token.value }, args as never);
    const first = await list({ first: 2 });
    expect(first.result.map((p) => p.id)).toEqual(ids.slice(0, 2));
    expect(first.pagination).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const second = await list({ first: 2, cursor: first.pagination.endCursor });
    expect(second.result.map((p) => p.id)).toEqual(ids.slice(2, 4));
    expect(second.pagination).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    const back = await list({ last: 2, cursor: second.pagination.startCursor });
    expect(back.result.map((p) => p.id)).toEqual(ids.slice(0, 2));
    const end = await list({ first: 10, cursor: second.pagination.endCursor });
    expect(end.result.map((p) => p.id)).toEqual(ids.slice(4));
    expect(end.pagination.hasNextPage).toBe(false);
  });

  it('lets a client with `read` see only what it created', async () => {
    const { access_token } = await grantFor(alice, wallet.bob.address);
    const mine = await alice.api.incomingPayment.create({ url: s.openPaymentsUrl, accessToken: access_token.value }, { walletAddress: wallet.bob.address });
    const carol = await newClient('carol', 'carol-key-1');
    const reader = await grantFor(carol, wallet.bob.address, ['read', 'list']);
    expect(await failure(carol.api.incomingPayment.get({ url: mine.id, accessToken: reader.access_token.value }))).toMatchObject({
      status: 403,
      code: 'forbidden',
    });
    const listed = await carol.api.incomingPayment.list({ url: s.openPaymentsUrl, walletAddress: wallet.bob.address, accessToken: reader.access_token.value });
    expect(listed.result.map((p) => p.id)).not.toContain(mine.id);
  });
});

// D5: a client with a key of its own making asked for read-all, list-all and complete with no
// identifier, got a token, and read, listed and completed other people's incoming payments.
describe("least privilege without the wallet owner's consent", () => {
  // A client nobody registered: its key is in the request (`client: {jwk}`), as GNAP allows.
  async function stranger() {
    const { privateKey } = generateKeyPairSync('ed25519');
    const keyId = `stranger-${Date.now()}`;
    const jwk = generateJwk({ privateKey, keyId });
    const api = await createAuthenticatedClient({ walletAddressUrl: 'https://stranger.example/me', privateKey, keyId, validateResponses: true });
    const ask = (access: unknown[], extra: object = {}) =>
      api.grant.request({ url: s.authServerUrl }, { access_token: { access }, ...extra } as never, { jwk: jwk as never });
    return { api, ask };
  }
  const bobsPayment = async (metadata?: Record<string, unknown>) => {
    const { access_token } = await grantFor(alice, wallet.bob.address);
    return alice.api.incomingPayment.create(
      { url: s.openPaymentsUrl, accessToken: access_token.value },
      { walletAddress: wallet.bob.address, incomingAmount: amount('700'), ...(metadata && { metadata }) },
    );
  };

  it("refuses what reaches every resource of a wallet address without its owner's consent: list-all, quote read-all (the reproduced grant)", async () => {
    const { ask } = await stranger();
    const refused = { status: 400, code: 'invalid_request' };
    expect(await failure(ask([{ type: 'incoming-payment', actions: ['read-all', 'list-all', 'complete'] }]))).toMatchObject({
      ...refused,
      description: expect.stringContaining('access_token.access[0] (incoming-payment read-all, list-all, complete)'),
    });
    expect(await failure(ask([{ type: 'quote', actions: ['read-all'] }]))).toMatchObject(refused);
    // With the wallet address named, consent is needed: a key is no wallet owner's app to consent to.
    expect(await failure(ask([{ type: 'incoming-payment', actions: ['list-all'], identifier: wallet.alice.address }]))).toMatchObject({
      status: 400,
      code: 'invalid_client',
    });
    // A client named by its wallet address must ask for the interaction.
    expect(await failure(grantFor(alice, wallet.bob.address, ['read', 'list-all']))).toMatchObject({
      ...refused,
      description: expect.stringContaining('must include interact'),
    });
  });

  // Issue 28: one outgoing-payment item sent the whole request to consent unjudged; after Accept, the
  // token read Bob's incoming payment made by another client (metadata, STREAM secret), listed Bob's
  // and Carol's, and read another app's quote. Each item is judged by its own rule now.
  it('judges every item of a request that needs consent by its own rule: the reproduced request is 400, naming the item', async () => {
    const dave = await ok(s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/dave-${Date.now()}`, assetCode: 'USD', publicName: 'Dave' }));
    const refused = await failure(
      alice.api.grant.request({ url: s.authServerUrl }, {
        access_token: {
          access: [
            { type: 'outgoing-payment', actions: ['create'], identifier: dave.address, limits: { debitAmount: amount('1') } },
            { type: 'incoming-payment', actions: ['read-all', 'list-all'] },
            { type: 'quote', actions: ['read-all'] },
          ],
        },
        interact: { start: ['redirect'], finish: { method: 'redirect', uri: 'https://app.example/back', nonce: 'n' } },
      } as never),
    );
    expect(refused).toMatchObject({
      status: 400,
      code: 'invalid_request',
      description: expect.stringContaining('access_token.access[1] (incoming-payment read-all, list-all)'),
    });
  });

  // Issue 28: an upper-case incoming payment URL was not seen as one, and read, complete and list were issued on it.
  it('compares an identifier canonically: an incoming payment URL however spelled grants read of that payment only', async () => {
    const bobs = await bobsPayment();
    for (const identifier of [bobs.id.toUpperCase().replace('HTTP://', 'http://'), `${bobs.id}/`]) {
      expect(await failure(grantFor(alice, identifier, ['read', 'complete', 'list'])), identifier).toMatchObject({
        status: 400,
        code: 'invalid_request',
        description: expect.stringContaining('grants read of that payment only'),
      });
      const { access_token } = await grantFor(alice, identifier, ['read']);
      expect(await alice.api.incomingPayment.get({ url: bobs.id, accessToken: access_token.value }), identifier).toMatchObject({ id: bobs.id });
    }
  });

  it("lets a stranger create, read and complete its own incoming payments, but not read, complete or list another client's", async () => {
    const bobs = await bobsPayment({ secret: 'private to Bob' });
    const { api, ask } = await stranger();
    const grant = await ask([{ type: 'incoming-payment', actions: ['create', 'read', 'complete', 'list'] }]);
    if (!isFinalizedGrantWithAccessToken(grant)) throw new Error('expected a grant issued at once');
    const accessToken = grant.access_token.value;

    const own = await api.incomingPayment.create({ url: s.openPaymentsUrl, accessToken }, { walletAddress: wallet.bob.address });
    expect((await api.incomingPayment.get({ url: own.id, accessToken })).methods).toHaveLength(1);
    expect(await api.incomingPayment.complete({ url: own.id, accessToken })).toMatchObject({ id: own.id, completed: true });

    expect(await failure(api.incomingPayment.get({ url: bobs.id, accessToken }))).toMatchObject({ status: 403, code: 'forbidden' });
    expect(await failure(api.incomingPayment.complete({ url: bobs.id, accessToken }))).toMatchObject({ status: 403, code: 'forbidden' });
    const listed = await api.incomingPayment.list({ url: s.openPaymentsUrl, walletAddress: wallet.bob.address, accessToken });
    expect(listed.result.map((p) => p.id)).toEqual([own.id]);
    // Refused, and nothing changed: Bob's payment is still open.
    const intent = await ok(s.admin('GET', `/payment-intents/${bobs.id.split('/').pop()}`), 200);
    expect(intent.state).toBe('pending');
  });

  it('lets a client that was given an incoming payment URL read that one payment to pay it (no metadata), and nothing else', async () => {
    const bobs = await bobsPayment({ secret: 'private to Bob' });
    const other = await bobsPayment();
    const { api, ask } = await stranger();
    const grant = await ask([{ type: 'incoming-payment', actions: ['read'], identifier: bobs.id }]);
    if (!isFinalizedGrantWithAccessToken(grant)) throw new Error('expected a grant issued at once');
    const accessToken = grant.access_token.value;
    const read = await api.incomingPayment.get({ url: bobs.id, accessToken });
    expect(read).toMatchObject({ id: bobs.id, walletAddress: wallet.bob.address, incomingAmount: amount('700'), completed: false });
    expect(read.methods[0]).toMatchObject({ type: 'ilp' });
    expect(read).not.toHaveProperty('metadata');
    expect(await failure(api.incomingPayment.get({ url: other.id, accessToken }))).toMatchObject({ status: 403 });
    expect(await failure(api.incomingPayment.complete({ url: bobs.id, accessToken }))).toMatchObject({ status: 403 });
    expect(await failure(api.incomingPayment.list({ url: s.openPaymentsUrl, walletAddress: wallet.bob.address, accessToken }))).toMatchObject({
      status: 403,
    });
    // Such a grant is for reading only.
    for (const actions of [['complete'], ['read', 'create'], ['list']])
      expect(await failure(ask([{ type: 'incoming-payment', actions, identifier: bobs.id }])), actions.join()).toMatchObject({
        status: 400,
        code: 'invalid_request',
      });
  });
});

describe('what is refused', () => {
  const signedFetch = async (url: string, body: unknown, key: KeyObject, keyId: string, tamper?: (b: string) => string) => {
    const text = JSON.stringify(body);
    const headers = await createHeaders({
      request: { method: 'POST', url, headers: { 'content-type': 'application/json' }, body: text },
      privateKey: key,
      keyId,
    });
    return fetch(url, { method: 'POST', headers: { ...headers }, body: tamper ? tamper(text) : text });
  };
  const grantBody = () => ({
    access_token: { access: [{ type: 'incoming-payment', actions: ['read'], identifier: wallet.bob.address }] },
    client: alice.walletAddress,
  });

  it('a grant request unsigned, signed by a key the client does not publish, or with a tampered body', async () => {
    const unsigned = await fetch(`${s.authServerUrl}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(grantBody()) });
    expect(unsigned.status).toBe(401);
    expect((await unsigned.json()).error.code).toBe('invalid_client');
    const stranger = generateKeyPairSync('ed25519').privateKey;
    const notPublished = await signedFetch(`${s.authServerUrl}/`, grantBody(), stranger, alice.keyId);
    expect(notPublished.status).toBe(401);
    // The same length, so that the signed Content-Length still fits; only the digest gives it away.
    const tampered = await signedFetch(`${s.authServerUrl}/`, grantBody(), alice.privateKey, alice.keyId, (b) => b.replace('"read"', '"list"'));
    expect(tampered.status).toBe(401);
    expect((await signedFetch(`${s.authServerUrl}/`, grantBody(), alice.privateKey, alice.keyId)).status).toBe(200); // the same, untouched
  });

  // Issue 28: signed over @method and @target-uri only, the body was taken (201): anyone holding
  // such a request could send any body under its signature.
  it('a request with a body whose signature does not cover its content-digest', async () => {
    const { access_token } = await grantFor(alice, wallet.bob.address);
    const url = `${s.openPaymentsUrl}/incoming-payments`;
    const authorization = `GNAP ${access_token.value}`;
    const signed = await createSignatureHeaders({
      request: { method: 'POST', url, headers: { authorization } },
      privateKey: alice.privateKey,
      keyId: alice.keyId,
    });
    expect(signed['Signature-Input']).not.toContain('content-digest');
    const body = JSON.stringify({ walletAddress: wallet.bob.address, metadata: { unsigned: true } });
    const res = await fetch(url, { method: 'POST', headers: { ...signed, authorization, 'content-type': 'application/json' }, body });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'invalid_signature', detail: expect.stringContaining('content-digest') });
    const unsignedGrant = await createSignatureHeaders({
      request: { method: 'POST', url: `${s.authServerUrl}/`, headers: {} },
      privateKey: alice.privateKey,
      keyId: alice.keyId,
    });
    const grant = await fetch(`${s.authServerUrl}/`, {
      method: 'POST',
      headers: { ...unsignedGrant, 'content-type': 'application/json' },
      body: JSON.stringify(grantBody()),
    });
    expect([grant.status, (await grant.json()).code]).toEqual([401, 'invalid_client']);
  });

  // Issue 28: a lone surrogate in metadata was stored and flowed out through the Admin API and webhooks.
  it('a lone UTF-16 surrogate anywhere in a body, on the resource server and the authorization server: 400, nothing created', async () => {
    const { access_token } = await grantFor(alice, wallet.carol.address);
    const created = (metadata: Record<string, unknown>) =>
      failure(alice.api.incomingPayment.create({ url: s.openPaymentsUrl, accessToken: access_token.value }, { walletAddress: wallet.carol.address, metadata }));
    for (const metadata of [{ note: 'a\ud800b' }, { '\udc00': 'key' }, { deep: [{ x: ['\udfff'] }] }])
      expect(await created(metadata), JSON.stringify(metadata)).toMatchObject({
        status: 400,
        code: 'invalid_request',
        description: expect.stringContaining('surrogate'),
      });
    const listed = await alice.api.incomingPayment.list({ url: s.openPaymentsUrl, walletAddress: wallet.carol.address, accessToken: access_token.value });
    expect(listed.result.filter((p) => p.metadata)).toEqual([]);
    expect(await created({ note: '\ud83d\ude00 paired is text' })).toMatchObject({ status: 0 });
    const grant = await failure(
      alice.api.grant.request({ url: s.authServerUrl }, {
        ...incomingAccess(wallet.bob.address, ['read']),
        interact: { start: ['redirect'], finish: { method: 'redirect', uri: 'https://app.example/back', nonce: '\ud800' } },
      } as never),
    );
    expect(grant).toMatchObject({ status: 400, code: 'invalid_request', description: expect.stringContaining('surrogate') });
  });

  it('a key the client revoked, once its key set is read again', async () => {
    const dave = await ok(s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/dave`, assetCode: 'USD' }));
    wallet.dave = { id: dave.id, address: dave.address };
    const c = await newClient('dave', 'dave-key-1');
    await grantFor(c, wallet.bob.address);
    await ok(s.admin('POST', `/wallet-addresses/${dave.id}/keys/dave-key-1/revoke`), 200);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 31_000); // past the authorization server's key cache
    expect(await failure(grantFor(c, wallet.bob.address))).toMatchObject({ status: 401, code: 'invalid_client' });
  });

  it('a token used for another wallet address or another kind of resource', async () => {
    const forBob = await grantFor(alice, wallet.bob.address);
    expect(
      await failure(
        alice.api.incomingPayment.create({ url: s.openPaymentsUrl, accessToken: forBob.access_token.value }, { walletAddress: wallet.carol.address }),
      ),
    ).toMatchObject({ status: 403 });
    const quotes = await issued(alice, { access_token: { access: [{ type: 'quote', actions: ['create', 'read'] }] } });
    expect(
      await failure(
        alice.api.incomingPayment.create({ url: s.openPaymentsUrl, accessToken: quotes.access_token.value }, { walletAddress: wallet.bob.address }),
      ),
    ).toMatchObject({ status: 403 });
    const body = JSON.stringify({ walletAddress: wallet.bob.address });
    const res = await fetch(`${s.openPaymentsUrl}/incoming-payments`, {
      method: 'POST',
      headers: { authorization: `GNAP ${quotes.access_token.value}`, 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(`GNAP as_uri=${s.authServerUrl}`);
    const none = await fetch(`${s.openPaymentsUrl}/incoming-payments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe(`GNAP as_uri=${s.authServerUrl}`);
  });

  it('a revoked token, an expired one, one of a revoked grant; a rotated one gives way to its successor', async () => {
    const use = (token: string) => failure(alice.api.incomingPayment.list({ url: s.openPaymentsUrl, walletAddress: wallet.bob.address, accessToken: token }));
    const revoked = await grantFor(alice, wallet.bob.address);
    await alice.api.token.revoke({ url: revoked.access_token.manage, accessToken: revoked.access_token.value });
    expect(await use(revoked.access_token.value)).toMatchObject({ status: 401 });

    const rotated = await grantFor(alice, wallet.bob.address);
    const next = await alice.api.token.rotate({ url: rotated.access_token.manage, accessToken: rotated.access_token.value });
    expect(next.access_token.value).not.toBe(rotated.access_token.value);
    expect(next.access_token.manage).not.toBe(rotated.access_token.manage);
    expect(await use(rotated.access_token.value)).toMatchObject({ status: 401 });
    expect(await use(next.access_token.value)).toMatchObject({ status: 0 }); // works

    const cancelled = await grantFor(alice, wallet.bob.address);
    await alice.api.grant.cancel({ url: cancelled.continue.uri, accessToken: cancelled.continue.access_token.value });
    expect(await use(cancelled.access_token.value)).toMatchObject({ status: 401 });

    const expiring = await grantFor(alice, wallet.bob.address);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 601_000);
    expect(await use(expiring.access_token.value)).toMatchObject({ status: 401 });
    // An expired token can still be rotated, as GNAP intends.
    const renewed = await alice.api.token.rotate({ url: expiring.access_token.manage, accessToken: expiring.access_token.value });
    expect(await use(renewed.access_token.value)).toMatchObject({ status: 0 });
  });

  // (This stack has no consent page, IDP_CONSENT_URL: op-interaction.test.ts has one.)
  it('without a consent page, an outgoing-payment grant waits for an interaction that is not offered, and says so', async () => {
    const pending = await alice.api.grant.request(
      { url: s.authServerUrl },
      {
        access_token: {
          access: [{ type: 'outgoing-payment', actions: ['create', 'read'], identifier: alice.walletAddress, limits: { debitAmount: amount('500') } }],
        },
        interact: { start: ['redirect'], finish: { method: 'redirect', uri: 'https://app.example/return', nonce: 'n-1' } },
      },
    );
    if (!isPendingGrant(pending)) throw new Error('expected a pending grant');
    expect(pending.interact.redirect).toMatch(new RegExp(`^${s.authServerUrl}/interact/`));
    const start = await fetch(pending.interact.redirect);
    expect([start.status, (await start.json()).code]).toEqual([501, 'interaction_not_offered']);
    expect(
      await failure(alice.api.grant.continue({ url: pending.continue.uri, accessToken: pending.continue.access_token.value }, { interact_ref: 'x' })),
    ).toMatchObject({
      status: 401,
      code: 'request_denied',
    });
    await alice.api.grant.cancel({ url: pending.continue.uri, accessToken: pending.continue.access_token.value });
  });

  it('prices a quote for an app with a quote grant, which only that app reads; the Admin API sees the same quote; a receiver must be a URL', async () => {
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: wallet.bob.address, incomingAmount: amount('2500') }));
    // A quote grant names no wallet address (the specification's quote access has no identifier):
    // a quote moves nothing; the outgoing payment that spends one is what a grant scopes.
    const grant = await issued(alice, { access_token: { access: [{ type: 'quote', actions: ['create', 'read'] }] } });
    const token = grant.access_token.value;
    const quote = await alice.api.quote.create(
      { url: s.openPaymentsUrl, accessToken: token },
      { walletAddress: wallet.alice.address, receiver: intent.url, method: 'ilp' },
    );
    expect(quote).toMatchObject({
      walletAddress: wallet.alice.address,
      receiver: intent.url,
      method: 'ilp',
      debitAmount: amount('2500'),
      receiveAmount: amount('2500'),
    });
    expect(quote.id).toMatch(new RegExp(`^${s.openPaymentsUrl}/quotes/[0-9a-f-]{36}$`));
    expect(await alice.api.quote.get({ url: quote.id, accessToken: token })).toEqual(quote);
    const id = quote.id.split('/').pop();
    expect(await ok(s.admin('GET', `/quotes/${id}`), 200)).toMatchObject({ id, debitAmount: amount('2500') });

    // Another app, with a quote grant of its own, does not read it.
    const carol = await newClient('carol', 'carol-quote-key');
    const other = await issued(carol, { access_token: { access: [{ type: 'quote', actions: ['create', 'read'] }] } });
    expect(await failure(carol.api.quote.get({ url: quote.id, accessToken: other.access_token.value }))).toMatchObject({ status: 403 });
    // A receiver that is no incoming payment's URL (the Admin API takes a bare id; Open Payments does not).
    expect(
      await failure(
        alice.api.quote.create({ url: s.openPaymentsUrl, accessToken: token }, { walletAddress: wallet.alice.address, receiver: intent.id, method: 'ilp' }),
      ),
    ).toMatchObject({ status: 400 });
    expect(await failure(alice.api.quote.get({ url: `${s.openPaymentsUrl}/quotes/nope`, accessToken: token }))).toMatchObject({ status: 404 });
  });

  it("takes a grant's identifier however it is spelled: with a trailing slash, in another case", async () => {
    for (const identifier of [`${wallet.bob.address}/`, wallet.bob.address.toUpperCase().replace('HTTP://', 'http://')]) {
      const { access_token } = await grantFor(alice, identifier);
      const token = access_token.value;
      const created = await alice.api.incomingPayment.create({ url: s.openPaymentsUrl, accessToken: token }, { walletAddress: wallet.bob.address });
      expect(await alice.api.incomingPayment.get({ url: created.id, accessToken: token }), identifier).toMatchObject({ id: created.id });
      const listed = await alice.api.incomingPayment.list({ url: s.openPaymentsUrl, walletAddress: `${wallet.bob.address}/`, accessToken: token });
      expect(
        listed.result.map((p) => p.id),
        identifier,
      ).toContain(created.id);
    }
    // Another wallet address is still another.
    const { access_token } = await grantFor(alice, `${wallet.carol.address}/`);
    expect(
      await failure(alice.api.incomingPayment.create({ url: s.openPaymentsUrl, accessToken: access_token.value }, { walletAddress: wallet.bob.address })),
    ).toMatchObject({
      status: 403,
    });
  });

  it('GNAP discovery, unsigned, at /discovery and at the grant endpoint: where to ask, how to prove a key, no interaction mode without a consent page', async () => {
    for (const url of [`${s.authServerUrl}/discovery`, s.authServerUrl]) {
      const res = await fetch(url);
      expect(res.status, url).toBe(200);
      expect(res.headers.get('access-control-allow-origin'), url).toBe('*');
      expect(await res.json(), url).toEqual({ grant_request_endpoint: s.authServerUrl, key_proofs_supported: ['httpsig'] });
    }
  });

  it('an outgoing-payment grant whose interval is no repeating interval is refused, naming it', async () => {
    for (const interval of ['P1M', '2026-01-01T00:00:00Z/P1M', 'R/2026-01-01T00:00:00Z/P0D', 'R/not-a-date/P1D']) {
      const refused = await failure(
        alice.api.grant.request(
          { url: s.authServerUrl },
          {
            access_token: {
              access: [{ type: 'outgoing-payment', actions: ['create'], identifier: alice.walletAddress, limits: { debitAmount: amount('500'), interval } }],
            },
            interact: { start: ['redirect'] },
          },
        ),
      );
      expect(refused, interval).toMatchObject({ status: 400, code: 'invalid_request' });
      expect(refused.description, interval).toContain('interval');
    }
  });

  it('wallet address names that would shadow the resource server', async () => {
    for (const name of ['incoming-payments', 'quotes', 'outgoing-payments', 'outgoing-payment-grant', 'team/jwks.json']) {
      const res = await s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/${name}`, assetCode: 'USD' });
      expect(res.status, name).toBe(400);
    }
  });
});

// Issue 28: grant requests were unthrottled (300 anonymous grants in 9 s).
describe('the per-client limit on grant requests', () => {
  it('takes GRANT_REQUESTS_PER_MINUTE (120 by default) from one client a minute, then 429 with Retry-After until the minute is over; other clients are not held', async () => {
    const now = Date.now();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(now - (now % 60_000) + 60_000 + 5_000); // 5 s into a minute of its own
    const { privateKey } = generateKeyPairSync('ed25519');
    const jwk = generateJwk({ privateKey, keyId: 'flood' });
    const flood = await createAuthenticatedClient({ walletAddressUrl: 'https://flood.example/me', privateKey, keyId: 'flood', validateResponses: false });
    const ask = () => failure(flood.grant.request({ url: s.authServerUrl }, incomingAccess(wallet.bob.address, ['create']), { jwk: jwk as never }));
    const answers: number[] = [];
    for (let i = 0; i < 121; i += 11) answers.push(...(await Promise.all(Array.from({ length: Math.min(11, 121 - i) }, ask))).map((a) => a.status));
    expect(answers.filter((status) => status === 0)).toHaveLength(120);
    expect(answers.filter((status) => status === 429)).toHaveLength(1);
    // As a problem document, with when to come back.
    const body = JSON.stringify({ access_token: { access: [{ type: 'incoming-payment', actions: ['create'] }] }, client: { jwk } });
    const url = `${s.authServerUrl}/`;
    const headers = await createHeaders({
      request: { method: 'POST', url, headers: { 'content-type': 'application/json' }, body },
      privateKey,
      keyId: 'flood',
    });
    const refused = await fetch(url, { method: 'POST', headers: { ...headers }, body });
    expect([refused.status, refused.headers.get('content-type'), refused.headers.get('retry-after')]).toEqual([429, 'application/problem+json', '55']);
    expect(await refused.json()).toMatchObject({ status: 429, code: 'too_many_requests', error: { code: 'too_many_requests' } });
    // Another client is not held; the next minute, this one is served again.
    expect(await failure(grantFor(alice, wallet.bob.address))).toMatchObject({ status: 0 });
    vi.setSystemTime(Date.now() + 55_000);
    expect(await ask()).toMatchObject({ status: 0 });
  });
});

describe("the service's own client identity", () => {
  it('reads an incoming payment with a grant of its own, through the official client', async () => {
    const { access_token } = await grantFor(alice, wallet.bob.address);
    const created = await alice.api.incomingPayment.create(
      { url: s.openPaymentsUrl, accessToken: access_token.value },
      { walletAddress: wallet.bob.address, incomingAmount: amount('100') },
    );
    const [{ readIncomingPayment }, { node }] = await Promise.all([import('../../lib/open-payments/client'), import('../../lib/platform/config')]);
    const read = await readIncomingPayment(node, created.id);
    expect(read).toMatchObject({ id: created.id, incomingAmount: amount('100') });
    expect(read.methods[0].type).toBe('ilp');
    // As a payer: another client's payment, without its metadata, with one read-all grant for every
    // payment on this authorization server (as Rafiki's nodes ask), not a grant for each.
    const another = await alice.api.incomingPayment.create(
      { url: s.openPaymentsUrl, accessToken: access_token.value },
      { walletAddress: wallet.bob.address, metadata: { secret: 'alice’s' } },
    );
    expect(await readIncomingPayment(node, another.id)).not.toHaveProperty('metadata');
    const { Items } = await s.dynamo.send(
      new ScanCommand({
        TableName: s.env.AUTH_TABLE,
        FilterExpression: 'contains(#c, :me)',
        ExpressionAttributeNames: { '#c': 'client' },
        ExpressionAttributeValues: { ':me': { S: '.well-known/pay' } },
      }),
    );
    expect((Items ?? []).map((g) => JSON.parse(g.access.S!))).toEqual([[{ type: 'incoming-payment', actions: ['read-all'] }]]);
    const published = await (await fetch(`${s.openPaymentsUrl}/.well-known/pay`)).json();
    expect(published).toMatchObject({ id: `${s.openPaymentsUrl}/.well-known/pay`, authServer: s.authServerUrl });
    expect((await (await fetch(`${s.openPaymentsUrl}/.well-known/pay/jwks.json`)).json()).keys).toHaveLength(1);
  });
});
