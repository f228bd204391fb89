import { generateKeyPairSync } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startConsole } from '../../infra/local/start/console';
import { launchChromium, signedInPage } from '../browser/browser';
import { operatorAdmin } from '../harness/operator';
import { startTestStack, type TestStack, tenantAdmin } from '../harness/stack';
import { waitFor } from '../harness/wait';
import { ok } from '../harness/world';

// The audit trail: each action of an operator signed in to the console (a route's function invoked
// with the console authorizer's claims, as the console's function hands it on) leaves one audit
// event, its author stamped on the change it commits, carried by the table's stream to the
// write-once store; a refused one leaves a refused event and no change; a signed (machine) request
// is audited as its signer's; the list's filters and cursor; one tenant's events are its own.
let s: TestStack;
const ann = { name: 'ann@fsp.example', groups: 'admin' };
const otto = { name: 'otto@fsp.example', groups: '[viewer operator]' };
const vera = { name: 'vera@fsp.example', groups: 'viewer' };
let asAnn: ReturnType<typeof operatorAdmin>;
let asOtto: ReturnType<typeof operatorAdmin>;
let asVera: ReturnType<typeof operatorAdmin>;
let held: { address: string }; // a wallet address whose intents wait for approval

const events = async (query = '') => (await ok(s.admin('GET', `/audit-events${query}`), 200)).items;
// The trail once the stream has carried what `done` waits for into the store.
const eventually = (query: string, done: (events: any[]) => boolean) =>
  waitFor(`audit events ${query}`, async () => {
    const found = await events(query);
    return done(found) ? found : undefined;
  });
// The main table's items of one kind (its partition key's prefix), as stored.
const stored = async (prefix: string) =>
  ((await s.dynamo.send(new ScanCommand({ TableName: s.env.MAIN_TABLE }))).Items ?? []).map((i) => unmarshall(i)).filter((i) => i.pk.startsWith(prefix));

beforeAll(async () => {
  s = await startTestStack({ EXCHANGE_RATES_URL: '' });
  [asAnn, asOtto, asVera] = [ann, otto, vera].map((who) => operatorAdmin(s, who));
  await ok(s.admin('POST', '/assets', { code: 'USD', scale: 2 }));
  held = await ok(s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/held`, assetCode: 'USD', approvalRequired: true }));
});
afterAll(async () => {
  await s?.stop();
});
afterEach(() => {
  delete process.env.PAYMENT_FAULTS;
});

describe("an operator's action", () => {
  it("leaves one audit event with its name, role, action, resource, outcome and change; a signed request, its signer's", async () => {
    const eur = await ok(s.admin('POST', '/assets', { code: 'EUR', scale: 2 }));
    const [signed] = await eventually(`?resourceId=${eur.id}`, (e) => e.length > 0);
    expect(signed).toMatchObject({ actor: { kind: 'key', name: 'operator' }, action: 'POST /assets', resource: { type: 'asset', id: eur.id } });

    const asset = await ok(asAnn('POST', '/assets', { code: 'GBP', scale: 2 }));
    const [event, ...rest] = await eventually(`?resourceId=${asset.id}`, (e) => e.length > 0);
    expect(rest).toHaveLength(0);
    expect(event).toEqual({
      id: expect.any(String),
      at: expect.any(String),
      actor: { kind: 'operator', name: ann.name, role: 'admin' },
      action: 'POST /assets',
      operationId: 'createAsset',
      resource: { type: 'asset', id: asset.id },
      tenant: 'operator',
      outcome: 'succeeded',
      status: 201,
      requestId: expect.any(String),
      changes: expect.objectContaining({ code: { after: 'GBP' }, scale: { after: '2' } }),
    });
    expect(Date.parse(event.at)).toBeGreaterThanOrEqual(Date.parse(asset.createdAt));
  });

  // A wallet address's keys were written as asked, with no author and no event: who let a key sign
  // for an address, or revoked one, was nowhere.
  it("adding and revoking a wallet address's key leaves an event each, with its signer and the change", async () => {
    const wallet = await ok(s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/keyed`, assetCode: 'USD' }));
    const jwk = { ...generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }), kid: 'signing-1', alg: 'EdDSA' };
    await ok(s.admin('POST', `/wallet-addresses/${wallet.id}/keys`, jwk));
    await ok(asAnn('POST', `/wallet-addresses/${wallet.id}/keys/signing-1/revoke`), 200);
    const id = `${wallet.id}/keys/signing-1`;
    const [revoked, added, ...rest] = await eventually(`?resourceId=${encodeURIComponent(id)}`, (e) => e.length >= 2);
    expect(rest).toEqual([]);
    expect(added).toMatchObject({
      actor: { kind: 'key', name: 'operator' },
      action: 'POST /wallet-addresses/{id}/keys',
      operationId: 'createWalletAddressKey',
      resource: { type: 'wallet-address-key', id },
      tenant: 'operator',
      outcome: 'succeeded',
      status: 201,
      changes: { walletAddressId: { after: wallet.id }, kid: { after: 'signing-1' }, jwk: { after: jwk }, createdAt: { after: expect.any(String) } },
    });
    expect(revoked).toMatchObject({
      actor: { kind: 'operator', name: ann.name, role: 'admin' },
      action: 'POST /wallet-addresses/{id}/keys/{kid}/revoke',
      operationId: 'revokeWalletAddressKey',
      resource: { type: 'wallet-address-key', id },
      status: 200,
      requestId: expect.any(String),
    });
    expect(revoked.changes).toEqual({ revokedAt: { after: expect.any(String) } });
  });

  it('approving an intent is an operator’s: a viewer is refused (403) and changes nothing; the operator’s approval is recorded, and a second one is refused (409)', async () => {
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: held.address }));
    const approve = `/payment-intents/${intent.id}/approve`;

    const refused = await asVera('POST', approve);
    expect(refused).toMatchObject({ status: 403, body: { code: 'role_forbidden' } });
    expect((await ok(s.admin('GET', `/payment-intents/${intent.id}`), 200)).state).toBe('pending_approval');
    await ok(asOtto('POST', approve), 200);
    expect(await asOtto('POST', approve)).toMatchObject({ status: 409 });

    const trail = (await eventually(`?resourceId=${intent.id}`, (e) => e.length === 4)).slice(0, 3);
    expect(trail.map((e: any) => [e.actor.name, e.actor.role, e.outcome, e.status, e.code])).toEqual([
      [otto.name, 'operator', 'refused', 409, 'invalid_state'],
      [otto.name, 'operator', 'succeeded', 200, undefined],
      [vera.name, 'viewer', 'refused', 403, 'role_forbidden'],
    ]);
    expect(trail.every((e: any) => e.action === 'POST /payment-intents/{id}/approve' && e.resource.type === 'payment-intent')).toBe(true);
  });

  it('refused by a domain rule (409 asset_exists): no change, and a refused event that names the code', async () => {
    const assets = (await stored('ASSET#')).length;
    expect(await asAnn('POST', '/assets', { code: 'USD', scale: 2 })).toMatchObject({ status: 409, body: { code: 'asset_exists' } });
    expect((await stored('ASSET#')).length).toBe(assets);
    const [event] = await eventually(`?actor=${encodeURIComponent(ann.name)}&outcome=refused`, (e) => e.some((x) => x.code === 'asset_exists'));
    expect(event).toMatchObject({ action: 'POST /assets', resource: { type: 'asset', id: null }, outcome: 'refused', status: 409, code: 'asset_exists' });
  });

  // Counted by the local runtime: the audit event rides in the change's own transaction, as a
  // signed request's replay guard does, so an operator's action makes the calls a machine's makes.
  it("costs an operator's action no AWS call more than a signed request's; a refusal, one write", async () => {
    const callsOf = async (op: () => Promise<unknown>) => {
      const before = s.stats().paymentIntentsApprove?.calls ?? {};
      await op();
      const after = s.stats().paymentIntentsApprove.calls;
      return Object.fromEntries(Object.entries(after).flatMap(([k, n]) => (n - (before[k] ?? 0) ? [[k, n - (before[k] ?? 0)]] : [])));
    };
    const pending = async () => (await ok(s.admin('POST', '/payment-intents', { walletAddress: held.address }))).id;
    const [first, second, third] = [await pending(), await pending(), await pending()];
    await ok(s.admin('POST', `/payment-intents/${first}/approve`), 200); // a warm container
    const machine = await callsOf(() => ok(s.admin('POST', `/payment-intents/${second}/approve`), 200));
    const operator = await callsOf(() => ok(asOtto('POST', `/payment-intents/${third}/approve`), 200));
    expect(operator).toEqual(machine);
    expect(machine).toMatchObject({ 'DynamoDB.TransactWriteItems': 1 });
    const refused = await callsOf(() => asOtto('POST', `/payment-intents/${third}/approve`));
    expect(refused['DynamoDB.PutItem']).toBe(1);
  });

  it('reads are not actions: a GET leaves no event', async () => {
    // The trail is written from the table's stream, a moment after each action. An action that
    // changed nothing (Vera's refused POST) is written to one partition, in order: one before the
    // GETs says that all before it has arrived, one after them that what they left would have too.
    const refusals = (e: any[]) => e.filter((x) => x.actor.name === vera.name && x.operationId === 'createAsset');
    const refusePost = async () => {
      const seen = refusals(await events('?limit=100')).length;
      expect((await asVera('POST', '/assets', { code: 'XAU', scale: 2 })).status).toBe(403);
      return eventually('?limit=100', (e) => refusals(e).length > seen);
    };
    const before = await refusePost();
    await ok(asVera('GET', '/assets'), 200);
    await ok(asVera('GET', '/audit-events'), 200);
    const after = await refusePost();
    const [last] = refusals(after); // newest first
    expect(after.filter((x: any) => x !== last)).toEqual(before);
  });
});

// serverless.yml gives the trail's stream a batching window of a second (batchWindow), which the
// local run keeps as Lambda does (infra/local/emulators/stream-poller.ts): records wait for it, and
// what it gathers goes in one invocation; the outbox relay has none, and sends at once.
describe('the stream to the trail', () => {
  it('waits out its batching window before it invokes the trail, and loses nothing by it', async () => {
    const invocations = () => s.stats().auditTrail?.invocations ?? 0;
    // One write whose event has arrived: nothing is gathering when the next ones are made.
    const first = await ok(s.admin('POST', '/assets', { code: 'WN0', scale: 2 }));
    await eventually(`?resourceId=${first.id}`, (e) => e.length > 0);
    const before = invocations();
    const writtenAt = Date.now();
    const assets = await Promise.all(['WN1', 'WN2', 'WN3'].map((code) => ok(s.admin('POST', '/assets', { code, scale: 2 }))));
    const invokedAt = await waitFor('the trail invoked', async () => (invocations() > before ? Date.now() : undefined));
    expect(invokedAt - writtenAt, 'the window passed first').toBeGreaterThanOrEqual(1000);
    for (const a of assets) await eventually(`?resourceId=${a.id}`, (e) => e.length === 1);
  });
});

describe('the change and its audit event, one transaction', () => {
  it('a crash after the commit: both are there (the answer was lost, not the record)', async () => {
    process.env.PAYMENT_FAULTS = 'commit:after-write';
    expect(await asAnn('POST', '/assets', { code: 'JPY', scale: 0 })).toMatchObject({ status: 500 });
    delete process.env.PAYMENT_FAULTS;
    const asset = (await ok(s.admin('GET', '/assets?limit=100'), 200)).items.find((a: any) => a.code === 'JPY');
    expect(asset).toBeDefined();
    expect(await eventually(`?resourceId=${asset.id}`, (e) => e.length > 0)).toMatchObject([{ outcome: 'succeeded', status: 201, actor: { name: ann.name } }]);
  });

  // An author DynamoDB refuses (a record over its 400 KB: a name no sign-in gives, so that the
  // transaction fails for real), stamped on the audited record the change writes: the change is not
  // made either. (Items that are no audited record, lib/shared/audited, carry no author: a pushed
  // rate is written as asked.)
  it('a commit that fails: neither is there, on every kind of audited record', async () => {
    const huge = operatorAdmin(s, { name: `${'x'.repeat(420_000)}@fsp.example`, groups: 'admin' });
    const wallet = await ok(s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/keys`, assetCode: 'USD' }));
    const jwk = { ...generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'EdDSA' };
    await ok(s.admin('POST', `/wallet-addresses/${wallet.id}/keys`, jwk));
    const rate = '/rates?sourceAssetCode=USD&destinationAssetCode=EUR';
    const audits = (await stored('AUDIT')).length;
    const before = await Promise.all([
      s.admin('GET', `/wallet-addresses/${wallet.id}/keys`),
      s.admin('GET', `/wallet-addresses/${wallet.id}`),
      s.admin('GET', rate),
    ]);

    const tries: [string, string, unknown][] = [
      ['POST', '/assets', { code: 'CHF', scale: 2 }],
      ['PATCH', `/wallet-addresses/${wallet.id}`, { publicName: 'Changed' }],
      ['POST', `/wallet-addresses/${wallet.id}/keys`, { ...jwk, kid: 'k2' }],
      ['POST', `/wallet-addresses/${wallet.id}/keys/k1/revoke`, undefined],
    ];
    for (const [method, path, body] of tries) expect((await huge(method, path, body)).status, `${method} ${path}`).toBe(500);

    expect((await ok(s.admin('GET', '/assets?limit=100'), 200)).items.map((a: any) => a.code)).not.toContain('CHF');
    const after = await Promise.all([
      s.admin('GET', `/wallet-addresses/${wallet.id}/keys`),
      s.admin('GET', `/wallet-addresses/${wallet.id}`),
      s.admin('GET', rate),
    ]);
    expect(after.map((r) => [r.status, r.body])).toEqual(before.map((r) => [r.status, r.body]));
    expect((await stored('AUDIT')).length).toBe(audits);
  });
});

describe('GET /audit-events', () => {
  it('filters by actor, resource, action, outcome and time, newest first, and pages by cursor', async () => {
    const start = new Date().toISOString();
    const peter = operatorAdmin(s, { name: 'peter@fsp.example', groups: 'admin' });
    const made = [];
    for (const code of ['AAA', 'BBB', 'CCC']) made.push(await ok(peter('POST', '/assets', { code, scale: 2 })));
    await peter('POST', '/assets', { code: 'AAA', scale: 2 }); // refused: exists
    const mine = await eventually(`?actor=${encodeURIComponent('peter@fsp.example')}`, (e) => e.length === 4);
    const mid = mine[0].at;

    expect(mine.map((e: any) => [e.outcome, e.resource.id])).toEqual([
      ['refused', null],
      ['succeeded', made[2].id],
      ['succeeded', made[1].id],
      ['succeeded', made[0].id],
    ]);
    const times = mine.map((e: any) => `${e.at}#${e.id}`);
    expect([...times].sort().reverse()).toEqual(times);
    expect(await events(`?resourceId=${made[1].id}`)).toMatchObject([{ resource: { id: made[1].id } }]);
    expect((await events(`?actor=${encodeURIComponent('peter@fsp.example')}&outcome=refused`)).map((e: any) => e.code)).toEqual(['asset_exists']);
    const actions = await events(`?action=${encodeURIComponent('POST /payment-intents/{id}/approve')}`);
    expect(actions.length).toBeGreaterThan(0);
    expect(actions.every((e: any) => e.operationId === 'approvePaymentIntent')).toBe(true);
    // [from, to): the window's end leaves out what happened at it.
    expect((await events(`?from=${start}&to=${mid}`)).map((e: any) => e.resource.id)).toEqual([made[2].id, made[1].id, made[0].id]);
    expect(await events(`?from=${new Date(Date.now() + 60_000).toISOString()}`)).toEqual([]);

    // Every event once, newest first, one page at a time.
    const all = await events('?limit=100');
    const paged = [];
    let cursor: string | null = null;
    do {
      const page: { items: unknown[]; nextCursor: string | null } = await ok(s.admin('GET', `/audit-events?limit=2${cursor ? `&cursor=${cursor}` : ''}`), 200);
      paged.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    expect(paged).toEqual(all);
  });

  it('refuses bad filters with 400, naming the field', async () => {
    for (const [query, field] of [
      ['outcome=maybe', 'query.outcome'],
      ['from=yesterday', 'query.from'],
      ['from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', 'query.to'],
      ['action=GET%20%2Fassets', 'query.action'],
      ['who=ann', undefined],
    ] as const) {
      const res = await s.admin('GET', `/audit-events?${query}`);
      expect(res.status, query).toBe(400);
      if (field) expect(JSON.stringify(res.body.errors), query).toContain(field);
    }
  });
});

describe("a tenant's audit trail", () => {
  it("is its own: A's operator reads A's events only, and cannot name B", async () => {
    const tenant = async (name: string) => {
      const t = await ok(s.admin('POST', '/tenants', { name, walletAddressPrefix: `${s.openPaymentsUrl}/${name}` }));
      return {
        ...t,
        admin: tenantAdmin(s.adminUrl, t.id, t.adminApiSecret),
        operator: operatorAdmin(s, { name: `${name}-admin@fsp.example`, groups: 'admin', tenant: t.id }),
      };
    };
    const a = await tenant('audit-a');
    const b = await tenant('audit-b');
    const assetOfA = await ok(a.operator('POST', '/assets', { code: 'USD', scale: 2 }));
    const assetOfB = await ok(b.operator('POST', '/assets', { code: 'USD', scale: 2 }));

    await waitFor("B's event", async () => (await ok(b.admin('GET', '/audit-events'), 200)).items.length > 0 || undefined);
    const readByA = await waitFor("A's event", async () => {
      const items = (await ok(a.operator('GET', '/audit-events'), 200)).items;
      return items.length ? items : undefined;
    });
    expect(readByA.map((e: any) => [e.tenant, e.resource.id])).toEqual([[a.id, assetOfA.id]]);
    expect((await ok(b.admin('GET', '/audit-events'), 200)).items.map((e: any) => [e.tenant, e.resource.id])).toEqual([[b.id, assetOfB.id]]);
    expect(await a.operator('GET', '/audit-events', undefined, { 'tenant-id': b.id })).toMatchObject({ status: 403, body: { code: 'role_forbidden' } });
    // A write at B is refused too: the refusal is in A's operator's own trail, and B's is as it was.
    expect(await a.operator('POST', '/assets', { code: 'EUR', scale: 2 }, { 'tenant-id': b.id })).toMatchObject({ status: 403 });
    const refusedAtB = await waitFor('the refusal in A', async () => {
      const [first] = (await ok(a.operator('GET', '/audit-events'), 200)).items;
      return first?.outcome === 'refused' ? first : undefined;
    });
    expect(refusedAtB).toMatchObject({ tenant: a.id, outcome: 'refused', status: 403 });
    expect((await ok(b.admin('GET', '/audit-events'), 200)).items).toHaveLength(1);
    // The deployment's own trail holds neither.
    expect((await events('?limit=100')).some((e: any) => [assetOfA.id, assetOfB.id].includes(e.resource.id))).toBe(false);
  });
});

describe("the console's Audit page", () => {
  it('lists who did what, with role, outcome and a link to the resource’s page, and filters by outcome', async () => {
    const server = await startConsole({ port: 0, adminUrl: s.adminUrl, operators: s.operators });
    const browser = await launchChromium({ width: 1280, height: 900 });
    try {
      const asset = await ok(asAnn('POST', '/assets', { code: 'SEK', scale: 2 }));
      // In the trail (a second or so after the action: the stream's batching window) before the page reads it.
      await eventually(`?resourceId=${asset.id}`, (e) => e.length > 0);
      const page = await signedInPage(browser, server.url, s.operators);
      await page.goto(`${server.url}/#/audit`);
      expect(await page.locator('nav a[aria-current="page"]').textContent()).toBe('Audit');
      const table = page.locator('table[aria-label="Audit events"]');
      const row = table.locator('tbody tr').filter({ hasText: asset.id });
      await row.waitFor();
      expect(await row.textContent()).toContain(ann.name);
      expect(await row.textContent()).toContain('admin');
      expect(await row.textContent()).toContain('POST /assets');
      expect(await row.locator('.state').textContent()).toBe('succeeded');

      await page.getByLabel('Outcome').selectOption('refused');
      await table.locator('tbody tr').filter({ hasText: asset.id }).waitFor({ state: 'detached' });
      const outcomes = await table.locator('tbody .state').allTextContents();
      expect(outcomes.length).toBeGreaterThan(0);
      expect(new Set(outcomes)).toEqual(new Set(['refused']));

      await page.getByLabel('Outcome').selectOption('');
      await row.getByRole('link', { name: 'asset' }).click();
      await page.locator('dl[aria-label="Asset"]').waitFor(); // the asset's own page
    } finally {
      await browser.close();
      await server.stop();
    }
  });
});
