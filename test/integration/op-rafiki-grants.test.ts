import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import { generateJwk } from '@interledger/http-signature-utils';
import { type AuthenticatedClient, createAuthenticatedClient, isFinalizedGrantWithAccessToken } from '@interledger/open-payments';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen } from '../../infra/local/start/listen';
import { startTestStack, type TestStack } from '../harness/stack';
import { ok } from '../harness/world';

// Conformance with Rafiki's remote incoming payment service (packages/backend/src/open_payments/
// payment/incoming_remote/service.ts, and the grant service it asks through, at Rafiki 884c4bc):
// to pay, create or complete an incoming payment on another node, a Rafiki node asks that node's
// authorization server for `incoming-payment` grants with no identifier and no finish URI, always
// with interact.start ["redirect"], and needs them issued at once:
//   read-all (to read a receiver: amounts, state, expiry, STREAM credentials),
//   create + read-all (to create one), read-all + complete (to complete one it created).
// Its client is its node's own wallet address, https://<node>/.well-known/pay, with its jwks.json.
// Each shape is sent here by the official client, as Rafiki sends it, then used as Rafiki uses it.
let s: TestStack;
let rafikiNode: { url: string; stop(): Promise<void> };
let rafiki: AuthenticatedClient; // Rafiki's backend as an Open Payments client
let shop: AuthenticatedClient; // another client, whose incoming payments Rafiki's node is given to pay
let bob: string;

const usd = (value: string) => ({ value, assetCode: 'USD', assetScale: 2 });
const failure = (p: Promise<unknown>) =>
  p.then(
    () => ({ status: 0, code: 'none' }),
    (e) => ({ status: e.status as number, code: e.code as string }),
  );

// A Rafiki node's identity: its wallet address document and key set at /.well-known/pay.
async function startRafikiIdentity() {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = generateJwk({ privateKey, keyId: 'rafiki-backend' });
  let base = '';
  const server = createServer((req, res) => {
    const body =
      req.url === '/.well-known/pay'
        ? { id: `${base}/.well-known/pay`, publicName: 'Rafiki node', assetCode: 'USD', assetScale: 2, authServer: `${base}/auth`, resourceServer: base }
        : req.url === '/.well-known/pay/jwks.json'
          ? { keys: [jwk] }
          : undefined;
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? {}));
  });
  const { port, stop } = await listen(server, 0);
  base = `http://localhost:${port}`;
  const client = await createAuthenticatedClient({ walletAddressUrl: `${base}/.well-known/pay`, privateKey, keyId: 'rafiki-backend', validateResponses: true });
  return { url: base, stop, client };
}

// Rafiki's grant request (grant/service.ts requestNewGrant), sent by the official client.
async function rafikiGrant(actions: string[], interact = true) {
  const grant = await rafiki.grant.request({ url: s.authServerUrl }, {
    access_token: { access: [{ type: 'incoming-payment', actions }] },
    ...(interact && { interact: { start: ['redirect'] } }),
  } as never);
  if (!isFinalizedGrantWithAccessToken(grant)) throw new Error(`expected ${actions} issued at once, as Rafiki requires`);
  return grant.access_token;
}

beforeAll(async () => {
  s = await startTestStack({ EXCHANGE_RATES_URL: '' });
  await ok(s.admin('POST', '/assets', { code: 'USD', scale: 2 }));
  const wallet = async (name: string) =>
    ok(s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/${name}`, assetCode: 'USD', publicName: name }));
  bob = (await wallet('bob')).address;
  const shopWallet = await wallet('shop');
  const { privateKey } = generateKeyPairSync('ed25519');
  await ok(s.admin('POST', `/wallet-addresses/${shopWallet.id}/keys`, generateJwk({ privateKey, keyId: 'shop-key' })));
  shop = await createAuthenticatedClient({ walletAddressUrl: shopWallet.address, privateKey, keyId: 'shop-key', validateResponses: true });
  const identity = await startRafikiIdentity();
  rafikiNode = identity;
  rafiki = identity.client;
});
afterAll(async () => {
  await rafikiNode?.stop();
  await s?.stop();
});

// An incoming payment the shop made for Bob, with metadata that is the shop's alone.
async function shopsPayment() {
  const grant = await shop.grant.request({ url: s.authServerUrl }, { access_token: { access: [{ type: 'incoming-payment', actions: ['create'] }] } } as never);
  if (!isFinalizedGrantWithAccessToken(grant)) throw new Error('expected a grant at once');
  return shop.incomingPayment.create(
    { url: s.openPaymentsUrl, accessToken: grant.access_token.value },
    { walletAddress: bob, incomingAmount: usd('500'), expiresAt: new Date(Date.now() + 3_600_000).toISOString(), metadata: { order: 'private to the shop' } },
  );
}

describe("the grants Rafiki's remote incoming payment service asks for", () => {
  for (const [actions, interact] of [
    [['read-all'], true],
    [['read-all'], false],
    [['create', 'read-all'], true],
    [['read-all', 'complete'], true],
  ] as const) {
    it(`${actions.join(' + ')}${interact ? ', with interact.start' : ''}: issued at once; reads another client's payment as a payer needs it, never its metadata`, async () => {
      const token = await rafikiGrant([...actions], interact);
      expect(token.access).toEqual([{ type: 'incoming-payment', actions }]);
      const theirs = await shopsPayment();
      // What Rafiki's Receiver reads (open_payments/receiver/model.ts): amounts, state, expiry, wallet address, methods.
      const read = await rafiki.incomingPayment.get({ url: theirs.id, accessToken: token.value });
      expect(read).toMatchObject({
        id: theirs.id,
        walletAddress: bob,
        completed: false,
        incomingAmount: usd('500'),
        receivedAmount: usd('0'),
        expiresAt: theirs.expiresAt,
        methods: [{ type: 'ilp', ilpAddress: expect.stringMatching(/^test\.node-a\./), sharedSecret: expect.any(String) }],
      });
      expect(read).not.toHaveProperty('metadata');
      // What it must not do: complete or list what it did not create.
      expect(await failure(rafiki.incomingPayment.complete({ url: theirs.id, accessToken: token.value }))).toMatchObject({ status: 403 });
      expect(await failure(rafiki.incomingPayment.list({ url: s.openPaymentsUrl, walletAddress: bob, accessToken: token.value }))).toMatchObject({
        status: 403,
      });
      expect((await ok(s.admin('GET', `/payment-intents/${theirs.id.split('/').pop()}`), 200)).state).toBe('pending');
    });
  }

  it("creates an incoming payment with create + read-all and completes it with read-all + complete, as Rafiki's node does; sees its own metadata", async () => {
    const creating = await rafikiGrant(['create', 'read-all']);
    const created = await rafiki.incomingPayment.create(
      { url: s.openPaymentsUrl, accessToken: creating.value },
      { walletAddress: bob, incomingAmount: usd('300'), metadata: { description: 'from Rafiki' } },
    );
    expect(created).toMatchObject({ walletAddress: bob, metadata: { description: 'from Rafiki' } });
    expect(await rafiki.incomingPayment.get({ url: created.id, accessToken: creating.value })).toMatchObject({ metadata: { description: 'from Rafiki' } });
    const completing = await rafikiGrant(['read-all', 'complete']);
    expect(await rafiki.incomingPayment.complete({ url: created.id, accessToken: completing.value })).toMatchObject({ id: created.id, completed: true });
  });

  it('refuses what reaches further without consent, even asked as Rafiki asks (no identifier, interact.start): list-all, quote read-all', async () => {
    const ask = (access: object[]) =>
      failure(rafiki.grant.request({ url: s.authServerUrl }, { access_token: { access }, interact: { start: ['redirect'] } } as never));
    expect(await ask([{ type: 'incoming-payment', actions: ['read-all', 'list-all'] }])).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(await ask([{ type: 'quote', actions: ['read-all'] }])).toMatchObject({ status: 400, code: 'invalid_request' });
  });

  it("keeps a read grant for one payment's URL working, read only, without metadata", async () => {
    const theirs = await shopsPayment();
    const grant = await rafiki.grant.request({ url: s.authServerUrl }, {
      access_token: { access: [{ type: 'incoming-payment', actions: ['read'], identifier: theirs.id }] },
    } as never);
    if (!isFinalizedGrantWithAccessToken(grant)) throw new Error('expected a grant at once');
    const read = await rafiki.incomingPayment.get({ url: theirs.id, accessToken: grant.access_token.value });
    expect(read).toMatchObject({ id: theirs.id, methods: [{ type: 'ilp' }] });
    expect(read).not.toHaveProperty('metadata');
    expect(await failure(rafiki.incomingPayment.complete({ url: theirs.id, accessToken: grant.access_token.value }))).toMatchObject({ status: 403 });
  });
});
