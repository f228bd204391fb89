import { createHash, generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { generateJwk } from '@interledger/http-signature-utils';
import {
  type AuthenticatedClient,
  createAuthenticatedClient,
  isFinalizedGrantWithAccessToken,
  isPendingGrant,
  type PendingGrant,
} from '@interledger/open-payments';
import { deserializeIlpReply, type IlpReply, isFulfill, isReject, serializeIlpPrepare } from 'ilp-packet';
import { generateFulfillment, generateFulfillmentKey, generatePskEncryptionKey } from 'ilp-protocol-stream/dist/src/crypto';
import { IlpPacketType, Packet, StreamMoneyFrame } from 'ilp-protocol-stream/dist/src/packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../infra/local/start/serverless-config';
import { GUARD_ONLY } from '../../lib/shared/audited';
import { consentViaIdp } from '../browser/consent';
import { operatorAdmin } from '../harness/operator';
import { type Reply, startTestStack, type TestStack, tenantAdmin } from '../harness/stack';
import { ok, paymentIn, waitFor } from '../harness/world';
import { startRatesServer } from '../servers/rates-server';
import { startWebhookReceiver, type WebhookReceiver } from '../servers/webhook-receiver';

// Isolation of tenants, proven on one local node (issue 33, item 3). The operator makes two
// tenants, A and B, each seeded with what its FSP would have: assets, wallet addresses under its
// prefix, a peer, intents, a quote, a completed payment, webhook events, pushed rates, an app with
// grants. Then A, with its own credentials, reaches for B's things every way the service offers:
// every Admin route (taken from the service's OpenAPI document, so a new route is covered without
// a change here) with B's ids, every Open Payments route (taken from the handlers' route tables)
// with A's grants on B's wallet addresses and resources, ILP packets from A's peer to B's intent.
// Each is refused, shows nothing of B's, and writes nothing: the tables are compared before and
// after each request. The operator, a tenant too, gets the same Admin answers on B's ids. Then
// each tenant's books sum to zero, and what a container keeps for a while (pulled rates) is kept
// per tenant.

let s: TestStack;
let events: WebhookReceiver;
let a: Tenant;
let b: Tenant;
let operatorWallet: string; // the operator's own (it is a tenant too)
const usd = (value: string) => ({ value, assetCode: 'USD', assetScale: 2 });
const IDP_CONSENT_URL = 'http://localhost:9/consent';

interface Tenant {
  name: string;
  id: string;
  idpSecret: string;
  prefix: string;
  ilpAddress: string; // the node's, a dot and the tenant's suffix
  admin: (method: string, path: string, body?: unknown) => Promise<Reply>;
  resourceServer: string;
  authServer: string;
  assetCode: string; // an asset only this tenant has
  ids: Record<string, string>; // its resources' ids, by the Admin API's first path segment
  kid: string;
  alice: string;
  bob: string;
  intentUrl: string; // a completed intent
  openIntent: { id: string; url: string }; // an intent waiting for money
  quoteId: string;
  paymentId: string;
  peerToken: string;
  app: AuthenticatedClient; // an Open Payments client of its own (its wallet address alice's key)
}

// A tenant made by the operator and seeded through its own Admin API.
async function seedTenant(name: string, assetCode: string, rate: number): Promise<Tenant> {
  const walletAddressPrefix = `${s.openPaymentsUrl}/${name}`;
  const t = await ok(s.admin('POST', '/tenants', { name, walletAddressPrefix, webhookUrl: events.url, idpConsentUrl: IDP_CONSENT_URL }));
  const admin = tenantAdmin(s.adminUrl, t.id, t.adminApiSecret);

  // The same code in both tenants (each has its own USD), and one only this tenant has.
  const dollars = await ok(admin('POST', '/assets', { code: 'USD', scale: 2 }));
  const own = await ok(admin('POST', '/assets', { code: assetCode, scale: 2 }));
  for (const asset of [dollars, own]) await ok(admin('POST', `/assets/${asset.id}/liquidity`, { amount: '100000' }), 200);
  await ok(admin('POST', '/rates', { sourceAssetCode: 'USD', destinationAssetCode: assetCode, rate, rateTtlSecs: 86400 }));
  const wallet = async (who: string) =>
    ok(admin('POST', '/wallet-addresses', { address: `${walletAddressPrefix}/${who}`, assetCode: 'USD', publicName: `${name} ${who}` }));
  const alice = await wallet('alice');
  const bob = await wallet('bob');
  const kid = `${name}-app-key`;
  const { privateKey } = generateKeyPairSync('ed25519');
  await ok(admin('POST', `/wallet-addresses/${alice.id}/keys`, generateJwk({ privateKey, keyId: kid })));
  const app = await createAuthenticatedClient({ walletAddressUrl: alice.address, privateKey, keyId: kid, validateResponses: true });
  // A grant of its own app's, which GET /grants lists and POST /grants/{id}/revoke names.
  const grant = await app.grant.request({ url: `${s.authServerUrl}/t/${t.id}` }, {
    access_token: { access: [{ type: 'incoming-payment', actions: ['create', 'read'], identifier: alice.address }] },
  } as never);

  const peerToken = `${name}-peer-incoming-token-0123456789`;
  const peer = await ok(
    admin('POST', '/peers', {
      name: `${name}'s peer`,
      staticIlpAddress: `test.${name}-peer`,
      assetCode: 'USD',
      http: { incoming: { authTokens: [peerToken] }, outgoing: { authToken: `${name}-peer-outgoing-token-0123`, endpoint: 'http://peer.invalid/ilp' } },
    }),
  );
  await ok(admin('POST', `/peers/${peer.id}/liquidity`, { amount: '100000' }), 200);
  const withdrawal = await ok(admin('POST', `/peers/${peer.id}/liquidity-withdrawals`, { amount: '100', twoPhase: true }), 200);
  await ok(admin('POST', '/rates', { peerId: peer.id, sourceAssetCode: 'USD', destinationAssetCode: assetCode, rate, rateTtlSecs: 86400 }));

  // The specification's flow, funded and completed: alice pays bob.
  const intent = await ok(admin('POST', '/payment-intents', { walletAddress: bob.address, incomingAmount: usd('500'), metadata: { tenant: name } }));
  const quote = await ok(admin('POST', '/quotes', { walletAddress: alice.address, receiver: intent.id }));
  const payment = await ok(admin('POST', '/payments', { walletAddress: alice.address, quoteId: quote.id }));
  // Funded by its operator signed in to the console: an action in the tenant's audit trail.
  await ok(operatorAdmin(s, { name: `${name}-operator@fsp.example`, groups: 'operator', tenant: t.id })('POST', `/payments/${payment.id}/fund`), 200);
  await paymentIn({ admin }, payment.id, ['completed']);
  const openIntent = await ok(
    admin('POST', '/payment-intents', { walletAddress: alice.address, incomingAmount: usd('1000'), metadata: { tenant: name, open: true } }),
  );
  const event = await waitFor(`a webhook event of ${name}`, async () => (await ok(admin('GET', '/webhook-events?limit=1'), 200)).items[0]);

  return {
    name,
    id: t.id,
    idpSecret: t.idpSecret,
    prefix: walletAddressPrefix,
    ilpAddress: `${s.env.ILP_ADDRESS}.${t.ilpAddressSuffix}`,
    admin,
    resourceServer: `${s.openPaymentsUrl}/t/${t.id}`,
    authServer: `${s.authServerUrl}/t/${t.id}`,
    assetCode,
    ids: {
      assets: own.id,
      'wallet-addresses': alice.id,
      'payment-intents': intent.id,
      quotes: quote.id,
      payments: payment.id,
      peers: peer.id,
      'liquidity-withdrawals': withdrawal.id,
      'webhook-events': event.id,
      grants: grant.continue.uri.split('/').at(-1)!,
      tenants: t.id,
    },
    kid,
    alice: alice.address,
    bob: bob.address,
    intentUrl: intent.url,
    openIntent: { id: openIntent.id, url: openIntent.url },
    quoteId: quote.id,
    paymentId: payment.id,
    peerToken,
    app,
  };
}

// What shows that an answer holds something of `t`: its ids, its prefix, the asset only it has.
const markersOf = (t: Tenant) => [...Object.values(t.ids), t.openIntent.id, t.prefix, t.assetCode, t.peerToken];
const leaked = (body: unknown, t: Tenant) => markersOf(t).filter((m) => JSON.stringify(body ?? '').includes(m));

beforeAll(async () => {
  events = await startWebhookReceiver();
  s = await startTestStack({ EXCHANGE_RATES_URL: '', GRANT_REQUESTS_PER_MINUTE: '100000' });
  a = await seedTenant('fsp-a', 'XAA', 1.25);
  b = await seedTenant('fsp-b', 'XBB', 0.75);
  await ok(s.admin('POST', '/assets', { code: 'USD', scale: 2 }));
  const last = await ok(s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/operator-alice`, assetCode: 'USD' }));
  operatorWallet = last.address;
  // The audit trail has all that came before (the stream is read in order), a second or so after the
  // last change (its batching window), before the streams stop: the sweeps read each tenant's.
  await waitFor('the audit trail to catch up', async () => (await ok(s.admin('GET', `/audit-events?resourceId=${last.id}`), 200)).items.length || undefined);
  // Nothing writes in the background from here on (the outbox relay and the queues' consumers
  // wait), so that any change in the tables is a request's.
  await s.streams.stop();
});
afterAll(async () => {
  await s?.stop();
  await events?.stop();
});

// Every item of the main, rates, auth and webhook events tables, by table and key, but what a
// caller's requests count for the caller itself: the single-use signature guards each signed write
// records (SIG#…, or a tenant's T#<id>#SIG#…; a create's, a guard-only item in its record's place)
// and a client's grant requests this minute (GRANTRATE#…, in the tenant of the server asked, which
// any grant request there may add to, an Open Payments client's retry in the background too). The idempotency table is not read: it holds
// what a request stores for itself.
type Snapshot = Map<string, string>;
const CALLERS_OWN_COUNTS = /^(T#[^#]+#)?(SIG|GRANTRATE)#/;
async function snapshot(dynamo: DynamoDBClient): Promise<Snapshot> {
  const items: Snapshot = new Map();
  for (const table of [s.env.MAIN_TABLE, s.env.RATES_TABLE, s.env.AUTH_TABLE, s.env.WEBHOOK_EVENTS_TABLE]) {
    let ExclusiveStartKey: Record<string, any> | undefined;
    do {
      const page = await dynamo.send(new ScanCommand({ TableName: table, ExclusiveStartKey, ConsistentRead: true }));
      for (const item of page.Items ?? []) {
        const key = item.pk?.S ?? item.id?.S ?? '';
        if (!CALLERS_OWN_COUNTS.test(key) && !item[GUARD_ONLY])
          items.set(`${table} ${key} ${item.sk?.S ?? ''}`, JSON.stringify(item, Object.keys(item).sort()));
      }
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
  }
  return items;
}

// The items added, changed or removed between two snapshots, by key.
function changes(before: Snapshot, after: Snapshot): string[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((k) => before.get(k) !== after.get(k)).map((k) => `${before.has(k) ? (after.has(k) ? 'changed' : 'removed') : 'added'} ${k}`);
}

// What `act` wrote to the tables.
async function writesOf<T>(act: () => Promise<T>): Promise<{ result: T; written: string[] }> {
  const before = await snapshot(s.dynamo);
  const result = await act();
  return { result, written: changes(before, await snapshot(s.dynamo)) };
}

// ---------------------------------------------------------------------------------------------
// 1. The Admin API

interface DocOperation {
  parameters?: Array<{ name: string; in: string; required?: boolean }>;
  requestBody?: unknown;
  responses: Record<string, unknown>;
  security?: unknown[];
}

// A valid body for each write, naming B's things where the body can name any (with the caller's
// own wallet address beside them where one is needed): the route must refuse it for what of B's it
// names, not for its shape. A write route without an entry fails the test.
const bodies = (ownWallet: string): Record<string, unknown> => ({
  'post /assets': { code: 'XAB', scale: 2 }, // names nothing of B's: A's own (B's codes are A's too: both have USD)
  'patch /assets/{id}': { sendingFee: { fixed: '1', basisPoints: 1 } },
  'post /assets/{id}/liquidity': { amount: '100' },
  'post /assets/{id}/liquidity-withdrawals': { amount: '100' },
  'post /wallet-addresses': { address: `${b.prefix}/mallory`, assetCode: 'USD', publicName: 'Mallory' },
  'patch /wallet-addresses/{id}': { publicName: 'Mallory' },
  'post /wallet-addresses/{id}/keys': { kid: 'mallory', kty: 'OKP', crv: 'Ed25519', x: 'B'.repeat(43), alg: 'EdDSA' },
  'post /rates': { peerId: b.ids.peers, sourceAssetCode: 'USD', destinationAssetCode: 'XAA', rate: 2, rateTtlSecs: 600 },
  'post /payment-intents': { walletAddress: b.bob, incomingAmount: usd('100') },
  'post /payment-intents/{id}/cancel': { reason: 'Mallory' },
  'post /quotes': { walletAddress: ownWallet, receiver: b.openIntent.id, receiveAmount: usd('1') },
  // B's wallet address and intent, which this deployment serves: no receiver of B's is made, read or
  // completed through another's Admin API (lib/receivers).
  'post /receivers': { walletAddressUrl: b.bob, incomingAmount: usd('100') },
  'post /receivers/complete': { url: b.openIntent.url },
  'post /payments': { walletAddress: ownWallet, quoteId: b.quoteId },
  // B's static address and its incoming token: taken by B, which A must not be able to learn or seize.
  'post /peers': {
    name: 'Mallory',
    staticIlpAddress: 'test.fsp-b-peer',
    assetCode: 'USD',
    http: { incoming: { authTokens: [b.peerToken] }, outgoing: { authToken: 'mallory-outgoing-token-0123', endpoint: 'http://peer.invalid/ilp' } },
  },
  // This deployment's own peering endpoint, where a peer lands on the operator's tenant: not a way
  // into another's peers (off here, as by default: refused before anything is asked or written).
  'post /peers/by-url': { url: `${s.connectorUrl.replace(/\/ilp$/, '')}/peering`, assetCode: 'USD' },
  'patch /peers/{id}': { name: 'Mallory' },
  'post /peers/{id}/liquidity': { amount: '100' },
  'post /peers/{id}/liquidity-withdrawals': { amount: '100' },
  'post /tenants': { name: 'Mallory', walletAddressPrefix: `${s.openPaymentsUrl}/mallory` },
  'patch /tenants/{id}': { name: 'Mallory' },
});

// The query parameters that name something of B's; the others are left out.
const queryFor = (name: string): string | undefined =>
  ({
    address: b.alice,
    walletAddress: b.alice,
    peerId: b.ids.peers,
    url: b.openIntent.url,
    resourceId: b.paymentId,
    q: b.paymentId,
    account: `payment:${b.paymentId}`,
    sourceAssetCode: 'USD',
    destinationAssetCode: b.assetCode,
  })[name];

// The path and query of an operation, each parameter filled with B's value of its kind (a list's
// cursor is added apart, from B's own page).
function pathFor(template: string, op: DocOperation): string {
  const segment = template.split('/')[1];
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name === 'kid') return b.kid;
    const id = b.ids[segment];
    if (!id) throw new Error(`No id of B's for ${template}'s {${name}}: seed one (seedTenant's ids)`);
    return id;
  });
  const query = (op.parameters ?? []).filter((p) => p.in === 'query').flatMap((p) => (queryFor(p.name) === undefined ? [] : [[p.name, queryFor(p.name)!]]));
  return query.length ? `${path}?${new URLSearchParams(query)}` : path;
}

// Whether a route is the operator's alone: its document lists 403 operator_only.
const operatorOnly = (op: DocOperation) => JSON.stringify(op.responses['403'] ?? '').includes('operator_only');

// Another tenant's Admin API, as one caller: its requests, and whether a key is in its key space.
interface Caller {
  name: string;
  wallet: string; // a wallet address of its own
  admin: Tenant['admin'];
  owns: (key: string) => boolean;
  operator: boolean;
}

// Every route of the service's OpenAPI document, as `caller`, each path parameter B's id of its
// kind: 404 (or 403 operator_only for a tenant on the operator's routes, which the operator's own
// sweep leaves out: they are its to use on B), lists without B's items, and no write outside the
// caller's key space (none at all for a refused request). Answers what each route answered.
async function sweep(caller: Caller): Promise<string[]> {
  const doc = (await fetch(`${s.adminUrl}/openapi.json`).then((r) => r.json())) as { paths: Record<string, Record<string, DocOperation>> };
  const ops = Object.entries(doc.paths).flatMap(([template, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'post', 'patch', 'put', 'delete'].includes(method))
      .map(([method, op]) => ({ method, template, op })),
  );
  expect(ops.length).toBeGreaterThan(40);
  const written = bodies(caller.wallet);
  const outcomes: string[] = [];
  for (const { method, template, op } of ops) {
    if (caller.operator && operatorOnly(op)) continue;
    const key = `${method} ${template}`;
    const path = pathFor(template, op);
    if (op.requestBody && !(key in written)) throw new Error(`No body for ${key}: add one to bodies()`);
    const body = op.requestBody ? written[key] : undefined;
    const what = `${caller.name}: ${method.toUpperCase()} ${path}`;
    const { result: res, written: changed } = await writesOf(() => caller.admin(method.toUpperCase(), path, body));
    outcomes.push(`${what} -> ${res.status} ${res.body?.code ?? ''}`);
    if (operatorOnly(op)) {
      expect({ what, status: res.status, code: res.body?.code }).toEqual({ what, status: 403, code: 'operator_only' });
      expect(changed, what).toEqual([]);
    } else if (template.includes('{')) {
      expect({ what, status: res.status }).toEqual({ what, status: 404 });
      expect(res.headers.get('content-type'), what).toBe('application/problem+json');
      expect(changed, what).toEqual([]);
    } else if (method === 'get') {
      // A list or a check: the caller's own, with nothing of B's in it, or refused for a filter
      // that names B's thing, which the caller does not have. B's own answer shows its things, so
      // that their absence means something.
      if (res.status === 200) expect(leaked(res.body, b), what).toEqual([]);
      else {
        expect([400, 404, 422], `${what}: ${JSON.stringify(res.body)}`).toContain(res.status);
        expect(
          leaked(res.body, b).filter((m) => !decodeURIComponent(path).includes(m)),
          `${what}: more of B's than was named`,
        ).toEqual([]);
      }
      expect(changed, what).toEqual([]);
      if (op.security?.length !== 0) expect(leaked(await ok(b.admin('GET', path), 200), b).length, `${what} as B`).toBeGreaterThan(0);
      // A cursor of B's whole list's first page (with what the list requires: an account of B's):
      // it reaches nothing of B's either.
      const required = (op.parameters ?? []).filter((p) => p.in === 'query' && p.required).map((p) => [p.name, queryFor(p.name)!]);
      const first = new URLSearchParams([...required, ['limit', '1']]);
      const cursor = op.parameters?.some((p) => p.name === 'cursor') && (await ok(b.admin('GET', `${template}?${first}`), 200)).nextCursor;
      if (cursor) {
        const paged = `${template}?${new URLSearchParams([...first, ['cursor', cursor]])}`;
        const { result: page, written: pagedWrites } = await writesOf(() => caller.admin('GET', paged));
        outcomes.push(`${caller.name}: GET ${paged} -> ${page.status} ${page.body?.code ?? ''}`);
        expect(
          leaked(page.body, b).filter((m) => !decodeURIComponent(paged).includes(m)),
          `${caller.name}: GET ${paged}`,
        ).toEqual([]);
        expect(pagedWrites).toEqual([]);
      }
    } else {
      // A write that names B's things is refused; one that names nothing of B's (a new asset) is
      // the caller's own: it may write, in its key space only.
      expect(
        changed.filter((c) => !caller.owns(c.split(' ')[2])),
        `${what} -> ${res.status}: written outside ${caller.name}'s key space`,
      ).toEqual([]);
      if (res.status >= 400) expect(changed, what).toEqual([]);
      else expect(key, `${what} -> ${res.status} ${JSON.stringify(res.body)}`).toBe('post /assets');
    }
  }
  return outcomes;
}

describe("the Admin API, on B's ids", () => {
  it("answers A every route 404 (403 for the operator's routes), lists none of B's items, and writes nothing for B", async () => {
    const outcomes = await sweep({ name: 'A', wallet: a.alice, admin: a.admin, owns: (key) => key.startsWith(`T#${a.id}#`), operator: false });
    console.log(outcomes.join('\n'));
  });

  it('answers the operator the same on every route but its own /tenants', async () => {
    const outcomes = await sweep({
      name: 'operator',
      wallet: operatorWallet,
      admin: (method, path, body) => s.admin(method, path, body),
      owns: (key) => !key.startsWith('T#'),
      operator: true,
    });
    console.log(outcomes.join('\n'));
  });
});

// ---------------------------------------------------------------------------------------------
// 2. The Open Payments APIs

// Every Open Payments route, as `<server> <METHOD> <path>`: the route tables the handlers hand to
// openPaymentsApi (functions/open-payments, functions/auth-server), and the wallet address's two
// reads (functions/open-payments/wallet-address.ts serves them without a table).
function openPaymentsRoutes(): string[] {
  const routes = ['resourceServer GET {walletAddress}', 'resourceServer GET {walletAddress}/jwks.json'];
  for (const dir of ['open-payments', 'auth-server'])
    for (const file of readdirSync(join(ROOT, 'functions', dir))) {
      const source = readFileSync(join(ROOT, 'functions', dir, file), 'utf8');
      const server = /server: '(\w+)'/.exec(source)?.[1];
      for (const [, method, path] of source.matchAll(/method: '(\w+)',\s*path: '([^']+)'/g)) routes.push(`${server} ${method} ${path}`);
    }
  return routes;
}

// The status an Open Payments call was refused with (0: it was not).
const refusal = (call: Promise<unknown>) =>
  call.then(
    () => 0,
    (e) => {
      if (typeof e?.status !== 'number') throw e;
      return `${e.status} ${e.code ?? ''} ${e.description ?? ''}`;
    },
  );
const fetchStatus = (url: string, init: RequestInit = {}) => fetch(url, { redirect: 'manual', ...init }).then((r) => r.status);
// The status of a plain request and what its body says.
const fetchOutcome = (url: string, init: RequestInit = {}) =>
  fetch(url, { redirect: 'manual', ...init }).then(async (r) => {
    const problem = await r.json().catch(() => ({}));
    return `${r.status} ${problem.code ?? ''} ${problem.detail ?? ''}`;
  });

type Grant = { value: string; manage: string };
async function grantOf(t: Tenant, access: object[]): Promise<Grant> {
  const g = await t.app.grant.request({ url: t.authServer }, { access_token: { access } } as never).catch((e) => {
    throw new Error(`grant ${JSON.stringify(access)}: ${e.status} ${e.code} ${e.description}`);
  });
  if (!isFinalizedGrantWithAccessToken(g)) throw new Error('expected a grant at once');
  return g.access_token;
}
// A grant request of `t`'s app that needs the user's consent, at `t`'s authorization server.
const askingConsent = (t: Tenant, access: object, nonce: string) =>
  t.app.grant.request({ url: t.authServer }, {
    access_token: { access: [access] },
    interact: { start: ['redirect'], finish: { method: 'redirect', uri: 'http://localhost:9/finish', nonce } },
  } as never);
const interactive = (t: Tenant, nonce: string) =>
  askingConsent(
    t,
    { type: 'outgoing-payment', actions: ['create', 'read', 'read-all', 'list', 'list-all'], identifier: t.alice, limits: { debitAmount: usd('100000') } },
    nonce,
  );
async function pending(t: Tenant, nonce: string): Promise<PendingGrant> {
  const g = await interactive(t, nonce);
  if (!isPendingGrant(g)) throw new Error('expected a pending grant');
  return g;
}
// An outgoing payment grant of `t`'s alice, consented on its own consent page (its IdP secret).
async function consented(t: Tenant): Promise<Grant> {
  const g = await pending(t, `${t.name}-nonce`);
  const { finish } = await consentViaIdp(g.interact.redirect, 'accept', { idpSecret: t.idpSecret });
  const done = await t.app.grant.continue(
    { url: g.continue.uri, accessToken: g.continue.access_token.value },
    { interact_ref: finish!.searchParams.get('interact_ref')! },
  );
  if (!isFinalizedGrantWithAccessToken(done)) throw new Error('expected a token');
  return done.access_token;
}

describe("the Open Payments APIs, with A's grants on B's wallet addresses and resources", () => {
  const grants: Record<string, Grant> = {};
  let pendingA: PendingGrant;
  let pendingB: PendingGrant;
  beforeAll(async () => {
    for (const t of [a, b]) {
      grants[`${t.name} incoming`] = await grantOf(t, [{ type: 'incoming-payment', actions: ['create', 'read', 'list', 'complete'] }]);
      grants[`${t.name} read-all`] = await grantOf(t, [{ type: 'incoming-payment', actions: ['read-all'] }]);
      grants[`${t.name} quote`] = await grantOf(t, [{ type: 'quote', actions: ['create', 'read'] }]);
      grants[`${t.name} outgoing`] = await consented(t);
    }
    pendingA = await pending(a, 'a-pending');
    pendingB = await pending(b, 'b-pending');
    expect(await fetchStatus(pendingB.interact.redirect)).toBe(302); // B's user is at its consent page
  });

  const inA = () => grants['fsp-a incoming'].value;
  const readAllA = () => grants['fsp-a read-all'].value;
  const quoteA = () => grants['fsp-a quote'].value;
  const outA = () => grants['fsp-a outgoing'].value;
  const onB = (url: string) => url.replace(a.authServer, b.authServer); // A's AS URL, on B's AS
  const interaction = (g: PendingGrant) => new URL(g.interact.redirect).pathname.split('/').slice(-2); // [id, nonce]
  const bQuote = () => `${b.resourceServer}/quotes/${b.quoteId}`;
  const bPayment = () => `${b.resourceServer}/outgoing-payments/${b.paymentId}`;

  // Each route's attempts: A's grant at B's server, and A's grant at A's server naming B's things.
  // Each answers with the status it was refused with.
  const attempts = (): Record<string, Array<[string, () => Promise<string | number>]>> => ({
    'resourceServer POST /incoming-payments': [
      [
        "at B's",
        () => refusal(a.app.incomingPayment.create({ url: b.resourceServer, accessToken: inA() }, { walletAddress: b.bob, incomingAmount: usd('1') })),
      ],
      [
        "at A's",
        () => refusal(a.app.incomingPayment.create({ url: a.resourceServer, accessToken: inA() }, { walletAddress: b.bob, incomingAmount: usd('1') })),
      ],
    ],
    'resourceServer GET /incoming-payments': [
      ["at B's", () => refusal(a.app.incomingPayment.list({ url: b.resourceServer, walletAddress: b.bob, accessToken: inA() }))],
      ["at A's", () => refusal(a.app.incomingPayment.list({ url: a.resourceServer, walletAddress: b.bob, accessToken: inA() }))],
    ],
    'resourceServer GET /incoming-payments/{id}': [
      ["at B's", () => refusal(a.app.incomingPayment.get({ url: b.intentUrl, accessToken: readAllA() }))],
      [
        "at A's",
        () => refusal(a.app.incomingPayment.get({ url: `${a.resourceServer}/incoming-payments/${b.ids['payment-intents']}`, accessToken: readAllA() })),
      ],
    ],
    'resourceServer POST /incoming-payments/{id}/complete': [
      ["at B's", () => refusal(a.app.incomingPayment.complete({ url: b.openIntent.url, accessToken: inA() }))],
      ["at A's", () => refusal(a.app.incomingPayment.complete({ url: `${a.resourceServer}/incoming-payments/${b.openIntent.id}`, accessToken: inA() }))],
    ],
    'resourceServer POST /quotes': [
      [
        "at B's",
        () =>
          refusal(a.app.quote.create({ url: b.resourceServer, accessToken: quoteA() }, { walletAddress: b.alice, receiver: b.openIntent.url, method: 'ilp' })),
      ],
      [
        "at A's",
        () =>
          refusal(a.app.quote.create({ url: a.resourceServer, accessToken: quoteA() }, { walletAddress: b.alice, receiver: b.openIntent.url, method: 'ilp' })),
      ],
    ],
    'resourceServer GET /quotes/{id}': [
      ["at B's", () => refusal(a.app.quote.get({ url: bQuote(), accessToken: quoteA() }))],
      ["at A's", () => refusal(a.app.quote.get({ url: `${a.resourceServer}/quotes/${b.quoteId}`, accessToken: quoteA() }))],
    ],
    'resourceServer POST /outgoing-payments': [
      ["at B's", () => refusal(a.app.outgoingPayment.create({ url: b.resourceServer, accessToken: outA() }, { walletAddress: b.alice, quoteId: bQuote() }))],
      ["at A's", () => refusal(a.app.outgoingPayment.create({ url: a.resourceServer, accessToken: outA() }, { walletAddress: b.alice, quoteId: bQuote() }))],
      [
        "at A's, A's wallet, B's quote",
        () =>
          refusal(
            a.app.outgoingPayment.create(
              { url: a.resourceServer, accessToken: outA() },
              { walletAddress: a.alice, quoteId: `${a.resourceServer}/quotes/${b.quoteId}` },
            ),
          ),
      ],
    ],
    'resourceServer GET /outgoing-payments': [
      ["at B's", () => refusal(a.app.outgoingPayment.list({ url: b.resourceServer, walletAddress: b.alice, accessToken: outA() }))],
      ["at A's", () => refusal(a.app.outgoingPayment.list({ url: a.resourceServer, walletAddress: b.alice, accessToken: outA() }))],
    ],
    'resourceServer GET /outgoing-payments/{id}': [
      ["at B's", () => refusal(a.app.outgoingPayment.get({ url: bPayment(), accessToken: outA() }))],
      ["at A's", () => refusal(a.app.outgoingPayment.get({ url: `${a.resourceServer}/outgoing-payments/${b.paymentId}`, accessToken: outA() }))],
    ],
    'resourceServer GET /outgoing-payment-grant': [
      ["at B's", () => refusal(a.app.outgoingPayment.getGrantSpentAmounts({ url: b.resourceServer, accessToken: outA() }))],
    ],
    'authServer POST /': [
      [
        "at A's, to list B's wallet address's incoming payments",
        () => refusal(askingConsent(a, { type: 'incoming-payment', actions: ['list-all'], identifier: b.bob }, 'mallory')),
      ],
      [
        "at A's, to pay from B's wallet address",
        () => refusal(askingConsent(a, { type: 'outgoing-payment', actions: ['create'], identifier: b.alice }, 'mallory')),
      ],
    ],
    'authServer POST /continue/{id}': [
      [
        "A's grant at B's",
        () => refusal(a.app.grant.continue({ url: onB(pendingA.continue.uri), accessToken: pendingA.continue.access_token.value }, { interact_ref: 'x' })),
      ],
    ],
    'authServer DELETE /continue/{id}': [
      ["A's grant at B's", () => refusal(a.app.grant.cancel({ url: onB(pendingA.continue.uri), accessToken: pendingA.continue.access_token.value }))],
    ],
    'authServer POST /token/{id}': [["A's token at B's", () => refusal(a.app.token.rotate({ url: onB(grants['fsp-a incoming'].manage), accessToken: inA() }))]],
    'authServer DELETE /token/{id}': [
      ["A's token at B's", () => refusal(a.app.token.revoke({ url: onB(grants['fsp-a incoming'].manage), accessToken: inA() }))],
    ],
    'authServer GET /interact/{id}/{nonce}': [["A's interaction at B's", () => fetchOutcome(onB(pendingA.interact.redirect))]],
    'authServer GET /interact/{id}/{nonce}/finish': [
      ["A's interaction at B's", () => fetchOutcome(`${b.authServer}/interact/${interaction(pendingA).join('/')}/finish`)],
    ],
    'authServer GET /grant/{id}/{nonce}': [
      [
        "B's grant, A's IdP secret, at B's",
        () => fetchOutcome(`${b.authServer}/grant/${interaction(pendingB).join('/')}`, { headers: { 'x-idp-secret': a.idpSecret } }),
      ],
      [
        "B's grant, A's IdP secret, at A's",
        () => fetchOutcome(`${a.authServer}/grant/${interaction(pendingB).join('/')}`, { headers: { 'x-idp-secret': a.idpSecret } }),
      ],
    ],
    'authServer POST /grant/{id}/{nonce}/{choice}': [
      [
        "B's grant, A's IdP secret, at B's",
        () => fetchOutcome(`${b.authServer}/grant/${interaction(pendingB).join('/')}/accept`, { method: 'POST', headers: { 'x-idp-secret': a.idpSecret } }),
      ],
      [
        "B's grant, A's IdP secret, at A's",
        () => fetchOutcome(`${a.authServer}/grant/${interaction(pendingB).join('/')}/accept`, { method: 'POST', headers: { 'x-idp-secret': a.idpSecret } }),
      ],
    ],
  });
  // Routes that serve anyone (B's wallet address, its keys, its servers' discovery) or that only
  // the resource server calls (introspection): checked below, apart.
  const PUBLIC = [
    'resourceServer GET {walletAddress}',
    'resourceServer GET {walletAddress}/jwks.json',
    'authServer GET /',
    'authServer GET /discovery',
    'authServer POST /introspect',
  ];

  it('covers every route', () => {
    expect([...Object.keys(attempts()), ...PUBLIC].sort()).toEqual(openPaymentsRoutes().sort());
  });

  it('refuses every route (401, 403 or 404) and writes nothing', async () => {
    const outcomes: string[] = [];
    for (const [route, tries] of Object.entries(attempts()))
      for (const [how, attempt] of tries) {
        const { result: outcome, written } = await writesOf(attempt);
        const what = `${route}, ${how}: ${outcome || 'served'}`;
        outcomes.push(what);
        // Open Payments answers 400 for a wallet address it does not serve named in a body, the
        // interaction routes for an interaction they do not know, and GNAP refuses a grant request so.
        const [status, code] = String(outcome).split(' ');
        const badRequest = /_not_found$|^unknown_/.test(code ?? '') || route === 'authServer POST /';
        expect(['401', '403', '404', ...(badRequest ? ['400'] : [])], what).toContain(status);
        expect(written, what).toEqual([]);
      }
    console.log(outcomes.join('\n'));
  });

  it("serves B's wallet address with B's servers and keys, its discovery names B's servers, and introspection of A's token at B's is inactive", async () => {
    const { result, written } = await writesOf(async () => ({
      wallet: await a.app.walletAddress.get({ url: b.alice }),
      keys: await a.app.walletAddress.getKeys({ url: b.alice }),
      discovery: await fetch(b.authServer).then((r) => r.json()),
      introspection: await fetch(`${b.authServer}/introspect`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ access_token: inA() }),
      }).then(async (r) => ({ status: r.status, body: await r.json().catch(() => undefined) })),
    }));
    expect(result.wallet).toMatchObject({ id: b.alice, authServer: b.authServer, resourceServer: b.resourceServer });
    expect(result.keys.keys.map((k) => k.kid)).toEqual([b.kid]);
    expect(result.discovery.grant_request_endpoint).toBe(b.authServer);
    if (result.introspection.status === 200) expect(result.introspection.body).toEqual({ active: false });
    else expect([401, 403, 404]).toContain(result.introspection.status);
    expect(written).toEqual([]);
  });

  it("answers B's own grants on the same resources (so that A's refusals mean something)", async () => {
    expect((await b.app.incomingPayment.get({ url: b.intentUrl, accessToken: grants['fsp-b read-all'].value })).id).toBe(b.intentUrl);
    expect(await fetchStatus(`${b.authServer}/grant/${interaction(pendingB).join('/')}`, { headers: { 'x-idp-secret': b.idpSecret } })).toBe(200);
  });
});

// ---------------------------------------------------------------------------------------------
// 3. Packets

// The ILP address and STREAM secret of B's open intent, as any payer gets them: from B's resource
// server, with a grant of B's authorization server.
async function streamCredentials(t: Tenant, intentUrl: string) {
  const accessToken = (await grantOf(t, [{ type: 'incoming-payment', actions: ['read-all'] }])).value;
  const ilp = (await t.app.incomingPayment.get({ url: intentUrl, accessToken })).methods.find((m) => m.type === 'ilp')!;
  return { destination: ilp.ilpAddress, sharedSecret: Buffer.from(ilp.sharedSecret, 'base64url') };
}

// One STREAM packet of `amount` for the intent, built as any peer could (its condition is the
// intent's fulfillment's), sent over ILP-over-HTTP with a peer's token; the reply.
let sequence = 1;
async function streamPacket(to: Awaited<ReturnType<typeof streamCredentials>>, amount: bigint, token: string): Promise<IlpReply> {
  const key = await generatePskEncryptionKey(to.sharedSecret);
  const data = await new Packet(sequence++, IlpPacketType.Prepare, '0', [new StreamMoneyFrame(1, 1)]).serializeAndEncrypt(key);
  const fulfillment = await generateFulfillment(await generateFulfillmentKey(to.sharedSecret), data);
  const prepare = serializeIlpPrepare({
    amount: amount.toString(),
    destination: to.destination,
    executionCondition: createHash('sha256').update(fulfillment).digest(),
    expiresAt: new Date(Date.now() + 10_000),
    data,
  });
  const res = await fetch(s.connectorUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
    body: new Uint8Array(prepare),
  });
  expect(res.status).toBe(200);
  return deserializeIlpReply(Buffer.from(await res.arrayBuffer())) as IlpReply;
}

const received = async (t: Tenant) => (await ok(t.admin('GET', `/payment-intents/${t.openIntent.id}`), 200)).receivedAmount.value;

describe("packets from A's peer to B's intent", () => {
  it('are rejected, credit nothing and move no ledger', async () => {
    const to = await streamCredentials(b, b.openIntent.url);
    expect(to.destination.startsWith(`${b.ilpAddress}.`), to.destination).toBe(true);
    const { result: replies, written } = await writesOf(async () => {
      const out: IlpReply[] = [];
      for (const amount of [1n, 100n]) out.push(await streamPacket(to, amount, a.peerToken));
      return out;
    });
    for (const reply of replies) expect(isReject(reply), JSON.stringify(reply)).toBe(true);
    expect(await received(b)).toBe('0');
    expect(written).toEqual([]);
    // The same packet from B's own peer is fulfilled and credits B's intent: the refusal above is
    // A's token's, not the packet's.
    const own = await streamPacket(to, 100n, b.peerToken);
    expect(isFulfill(own), JSON.stringify(own)).toBe(true);
    expect(await received(b)).toBe('100');
  });

  it("leave A's own intent payable at A's own ILP address, by A's peer", async () => {
    const to = await streamCredentials(a, a.openIntent.url);
    expect(to.destination.startsWith(`${a.ilpAddress}.`), to.destination).toBe(true);
    const own = await streamPacket(to, 100n, a.peerToken);
    expect(isFulfill(own), JSON.stringify(own)).toBe(true);
    expect(await received(a)).toBe('100');
  });
});

// ---------------------------------------------------------------------------------------------
// 4. Books

describe("each tenant's books", () => {
  it("sum to zero, each tenant seeing only its own assets; the operator's too", async () => {
    const checkOf = (admin: Tenant['admin']) => ok(admin('GET', '/ledger/check'), 200);
    for (const t of [a, b]) {
      const check = await checkOf(t.admin);
      expect(check, t.name).toMatchObject({ balanced: true, unattributed: [] });
      expect(check.assets.map((x: { assetCode: string }) => x.assetCode).sort(), t.name).toEqual(expect.arrayContaining(['USD', t.assetCode]));
      for (const asset of check.assets) expect(asset, t.name).toMatchObject({ sum: '0', balanced: true });
      expect(leaked(check, t === a ? b : a), t.name).toEqual([]);
    }
    const operator = await checkOf((method, path, body) => s.admin(method, path, body));
    expect(operator).toMatchObject({ balanced: true, unattributed: [] });
    for (const asset of operator.assets) expect(asset).toMatchObject({ sum: '0', balanced: true });
    expect([...leaked(operator, a), ...leaked(operator, b)]).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// 5. What a container keeps for a while (last: the tenants get rates endpoints of their own here)

describe('pulled rates', () => {
  it("are each tenant's own, even when two tenants ask for the same base at once", async () => {
    const servers = await Promise.all([startRatesServer(), startRatesServer()]);
    try {
      const [forA, forB] = servers;
      forB.rates[''].USD = { EUR: 0.6 };
      // A's endpoint answers only once B has asked its own: the two pulls overlap.
      let release: () => void = () => undefined;
      const released = new Promise<void>((ok) => {
        release = ok;
      });
      forA.respondWith(async (_req, res) => {
        await released;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ base: 'USD', rates: { EUR: 0.8 } }));
      });
      await ok(s.admin('PATCH', `/tenants/${a.id}`, { ratesUrl: forA.url }), 200);
      await ok(s.admin('PATCH', `/tenants/${b.id}`, { ratesUrl: forB.url }), 200);

      const query = '/rates?sourceAssetCode=USD&destinationAssetCode=EUR';
      const asA = a.admin('GET', query);
      await waitFor("A's pull", async () => forA.requests.length || undefined);
      const asB = b.admin('GET', query);
      await waitFor("B's pull, from B's endpoint", async () => forB.requests.length || undefined).finally(release);
      expect((await ok(asB, 200)).rate).toBe(0.6);
      expect((await ok(asA, 200)).rate).toBe(0.8);
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
  });
});

describe("the service's Open Payments client", () => {
  it("is each tenant's own: its address under the tenant's prefix, naming the tenant's servers", async () => {
    // Each tenant's node reads the other's intent, as a payer's node does to quote it (whether the
    // quote can then be priced over Interledger does not matter here).
    const quotes = [
      await b.admin('POST', '/quotes', { walletAddress: b.alice, receiver: a.openIntent.url }),
      await a.admin('POST', '/quotes', { walletAddress: a.alice, receiver: b.openIntent.url }),
    ];
    for (const quote of quotes) expect(quote.status, JSON.stringify(quote.body)).toBeLessThan(500);
    for (const t of [a, b]) {
      const res = await fetch(`${t.prefix}/.well-known/pay`);
      expect(res.status, `${t.name}'s service address`).toBe(200);
      expect(await res.json(), t.name).toMatchObject({ authServer: t.authServer, resourceServer: t.resourceServer });
    }
  });
});
