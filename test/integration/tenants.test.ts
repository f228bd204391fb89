import { execFile } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { DescribeSecretCommand, GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../infra/local/emulators/emulators';
import { ROOT } from '../../infra/local/start/serverless-config';
import { GUARD_ONLY } from '../../lib/shared/audited';
import { MAX_ADDRESS_SEGMENTS, MAX_PREFIX_SEGMENTS } from '../../lib/shared/wallet-address-url';
import { adminClient, type Reply, startTestStack, type TestStack, tenantAdmin } from '../harness/stack';
import { ok } from '../harness/world';
import { startWebhookReceiver, type WebhookReceiver } from '../servers/webhook-receiver';

// Tenants on one local node: the operator makes them (POST /tenants answers their secrets once,
// which live in the Secrets Manager emulator), each signs its Admin requests with its own secret
// and a tenant-id header, and the operator deletes them, which stops their credentials at once.

let s: TestStack;
let secrets: SecretsManagerClient;
let hooks: WebhookReceiver; // the tenants' webhook endpoint
let n = 0;

beforeAll(async () => {
  hooks = await startWebhookReceiver();
  s = await startTestStack({ EXCHANGE_RATES_URL: '' });
  secrets = new SecretsManagerClient({ endpoint: s.endpoints.secretsmanager, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
});
afterAll(async () => {
  secrets?.destroy();
  await s?.stop();
  await hooks?.stop();
});

const prefix = (path = `fsp-${++n}`) => `${s.openPaymentsUrl}/${path}`;
const createTenant = (body: Record<string, unknown>) => ok(s.admin('POST', '/tenants', body));
const secretValue = (id: string, name: string) => secrets.send(new GetSecretValueCommand({ SecretId: `tenants/${id}/${name}` })).then((r) => r.SecretString);

const asTenant = (id: string, secret: string) => tenantAdmin(s.adminUrl, id, secret);

// The main table's items but the signatures used (each signed write records its own, refused or
// not; a create's in its record's place): what a refused request must leave as it was.
const mainItems = async () =>
  (
    await s.dynamo.send(
      new ScanCommand({
        TableName: s.env.MAIN_TABLE,
        Select: 'COUNT',
        ConsistentRead: true,
        FilterExpression: 'NOT begins_with(pk, :sig) AND attribute_not_exists(#guard)',
        ExpressionAttributeNames: { '#guard': GUARD_ONLY },
        ExpressionAttributeValues: { ':sig': { S: 'SIG#' } },
      }),
    )
  ).Count ?? 0;

const problemOf = (res: Reply) => ({ status: res.status, code: res.body?.code });

// Tenants' rules (the operator's own, suffixes, nested prefixes, changes, deletion, operator
// addresses against prefixes) are tested in memory: test/unit/services/tenants.test.ts. Here: the
// Admin API, its signatures and validation, the Secrets Manager emulator, webhooks, the CLI and
// racing requests on DynamoDB.
describe('tenants', () => {
  it('are made by the operator, with secrets answered once and kept in Secrets Manager, never shown again', async () => {
    const walletAddressPrefix = prefix();
    const res = await s.admin('POST', '/tenants', { name: 'Acme', walletAddressPrefix: `${walletAddressPrefix}/`, webhookUrl: 'https://acme.example/hooks' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const t = res.body;
    expect(t).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Acme',
      walletAddressPrefix, // without the trailing slash
      ilpAddressSuffix: `t${t.id.replace(/-/g, '').slice(0, 12)}`,
      webhookUrl: 'https://acme.example/hooks',
      webhookDialect: null, // the deployment's WEBHOOK_DIALECT
      ratesUrl: null,
      idpConsentUrl: null,
      state: 'active',
      createdAt: expect.any(String),
      updatedAt: t.createdAt,
      deletedAt: null,
      adminApiSecret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      webhookSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      idpSecret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(await secretValue(t.id, 'ADMIN_API_SECRET')).toBe(t.adminApiSecret);
    expect(await secretValue(t.id, 'WEBHOOK_SECRET')).toBe(t.webhookSecret);
    expect(await secretValue(t.id, 'IDP_SECRET')).toBe(t.idpSecret);

    const { adminApiSecret, webhookSecret, idpSecret, ...shown } = t;
    expect(await ok(s.admin('GET', `/tenants/${t.id}`), 200)).toEqual(shown);
    const listed = await ok(s.admin('GET', '/tenants?limit=100'), 200);
    expect(listed.items.find((i: { id: string }) => i.id === t.id)).toEqual(shown);
    expect(JSON.stringify(listed)).not.toContain(adminApiSecret);
  });

  it('refuses an ILP address suffix of more than one segment with 400 naming it', async () => {
    const dotted = await s.admin('POST', '/tenants', { name: 'Dotted', walletAddressPrefix: prefix(), ilpAddressSuffix: 'a.b' });
    expect(problemOf(dotted)).toEqual({ status: 400, code: 'invalid_request' });
    expect(dotted.body.errors).toEqual([{ field: 'ilpAddressSuffix', message: expect.stringContaining('one ILP address segment') }]);
  });

  it('let a tenant sign with its own secret and create an asset and a wallet address under its prefix', async () => {
    const walletAddressPrefix = prefix();
    const t = await createTenant({ name: 'Signer', walletAddressPrefix });
    const tenant = asTenant(t.id, t.adminApiSecret);
    const asset = await ok(tenant('POST', '/assets', { code: `TN${n}`, scale: 2 }));
    const wallet = await ok(tenant('POST', '/wallet-addresses', { address: `${walletAddressPrefix}/alice`, assetCode: asset.code, publicName: 'Alice' }));
    expect(wallet.address).toBe(`${walletAddressPrefix}/alice`);
    // Open Payments publishes it, found by its prefix, with the tenant's own servers.
    const published = await fetch(wallet.address, { headers: { accept: 'application/json' } });
    expect(published.status).toBe(200);
    expect(await published.json()).toMatchObject({
      id: wallet.address,
      authServer: `${s.authServerUrl}/t/${t.id}`,
      resourceServer: `${s.openPaymentsUrl}/t/${t.id}`,
    });
    // Its wallet addresses are under its prefix only.
    const outside = await tenant('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/bob-${n}`, assetCode: asset.code });
    expect(problemOf(outside)).toEqual({ status: 400, code: 'invalid_request' });
    expect(outside.body.detail).toContain(walletAddressPrefix);
    // Its data is its own: the operator lists none of it, and another tenant may use the same code.
    const codes = async (list: Promise<Reply>) => ((await ok(list, 200)).items as { code: string }[]).map((a) => a.code);
    expect(await codes(tenant('GET', '/assets?limit=100'))).toEqual([asset.code]);
    expect(await codes(s.admin('GET', '/assets?limit=100'))).not.toContain(asset.code);
    const other = await createTenant({ name: 'Other', walletAddressPrefix: prefix() });
    await ok(asTenant(other.id, other.adminApiSecret)('POST', '/assets', { code: asset.code, scale: 2 }));
    expect(problemOf(await tenant('GET', `/wallet-addresses/${wallet.id}`))).toEqual({ status: 200, code: undefined });
    expect(problemOf(await asTenant(other.id, other.adminApiSecret)('GET', `/wallet-addresses/${wallet.id}`))).toMatchObject({ status: 404 });
  });

  it("keep a tenant's Idempotency-Keys its own: the operator's key, sent by a tenant, is another request", async () => {
    const t = await createTenant({ name: 'Keys', walletAddressPrefix: prefix() });
    const key = { 'idempotency-key': `shared-key-${n}` };
    const operators = await ok(s.admin('POST', '/assets', { code: `OK${n}`, scale: 2 }, key));
    const tenants = await ok(adminClient(s.adminUrl, t.adminApiSecret).admin('POST', '/assets', { code: `TK${n}`, scale: 2 }, { ...key, 'tenant-id': t.id }));
    expect(tenants.id).not.toBe(operators.id);
    // Each replays its own.
    expect((await ok(s.admin('POST', '/assets', { code: `OK${n}`, scale: 2 }, key))).id).toBe(operators.id);
  });

  it("let the operator act for an active tenant with its own secret and the tenant's id (the console's tenant switch), and for none once it is deleted", async () => {
    const t = await createTenant({ name: 'Overseen', walletAddressPrefix: prefix() });
    const code = 'OVS';
    expect((await asTenant(t.id, t.adminApiSecret)('POST', '/assets', { code, scale: 2 })).status).toBe(201);
    const codes = (res: { body: { items: Array<{ code: string }> } }) => res.body.items.map((a) => a.code);
    const forTenant = await asTenant(t.id, s.env.ADMIN_API_SECRET)('GET', '/assets?limit=100');
    expect([forTenant.status, codes(forTenant)]).toEqual([200, [code]]); // the tenant's assets, and only those
    expect(codes(await s.admin('GET', '/assets?limit=100'))).not.toContain(code); // the operator's own do not hold it
    expect((await s.admin('DELETE', `/tenants/${t.id}`)).status).toBe(204);
    expect(problemOf(await asTenant(t.id, s.env.ADMIN_API_SECRET)('GET', '/assets'))).toEqual({ status: 401, code: 'unauthorized' });
  });

  it('refuse a wrong secret, an unknown tenant and the operator secret with an unknown tenant id alike, with 401', async () => {
    const t = await createTenant({ name: 'Guarded', walletAddressPrefix: prefix() });
    const wrong = await asTenant(t.id, 'not-the-tenant-secret-0123456789')('GET', '/assets');
    const unknown = await asTenant('9b2f4b8e-2c1d-4f7a-9e3b-0a1b2c3d4e5f', t.adminApiSecret)('GET', '/assets');
    const operatorsForNobody = await asTenant('9b2f4b8e-2c1d-4f7a-9e3b-0a1b2c3d4e5f', s.env.ADMIN_API_SECRET)('GET', '/assets');
    const notAnId = await asTenant('acme', t.adminApiSecret)('GET', '/assets');
    for (const res of [wrong, unknown, operatorsForNobody, notAnId]) {
      expect(problemOf(res)).toEqual({ status: 401, code: 'unauthorized' });
      expect(res.body.detail).toBe(wrong.body.detail); // no hint whether the tenant exists
    }
    // Unsigned, or stale: the same answer for a tenant that exists and one that does not.
    const unsigned = (id: string) => s.send('GET', '/assets', { headers: { 'tenant-id': id } }).then((r) => [r.status, r.body.detail]);
    expect(await unsigned('9b2f4b8e-2c1d-4f7a-9e3b-0a1b2c3d4e5f')).toEqual(await unsigned(t.id));
    const stale = (id: string) =>
      s
        .send('GET', '/assets', { headers: { 'tenant-id': id, signature: s.sign('GET', '/assets', '', Math.floor(Date.now() / 1000) - 3600) } })
        .then((r) => [r.status, r.body.detail]);
    expect(await stale('9b2f4b8e-2c1d-4f7a-9e3b-0a1b2c3d4e5f')).toEqual(await stale(t.id));
    // The tenant's secret without its id is a wrong operator signature.
    expect(problemOf(await adminClient(s.adminUrl, t.adminApiSecret).admin('GET', '/assets'))).toEqual({ status: 401, code: 'unauthorized' });
    // The header once: node:http sends each pair as its own header line (fetch would join them).
    const twice = await new Promise<number>((resolve, reject) => {
      const headers = ['signature', s.sign('GET', '/assets'), 'tenant-id', 'operator', 'Tenant-Id', t.id];
      const req = request(`${s.adminUrl}/assets`, { method: 'GET', headers }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
      req.end();
    });
    expect(twice).toBe(400);
  });

  it("send a tenant's events to its webhook URL, signed with its own webhook secret", async () => {
    const walletAddressPrefix = prefix();
    const t = await createTenant({ name: 'Hooked', walletAddressPrefix, webhookUrl: hooks.url });
    const tenant = asTenant(t.id, t.adminApiSecret);
    await ok(tenant('POST', '/assets', { code: `WH${n}`, scale: 2 }));
    const wallet = await ok(tenant('POST', '/wallet-addresses', { address: `${walletAddressPrefix}/shop`, assetCode: `WH${n}` }));
    const intent = await ok(tenant('POST', '/payment-intents', { walletAddress: wallet.address }));
    const event = await hooks.waitForEvent('payment_intent.created', (data) => data.id === intent.id);
    const delivery = hooks.deliveries.find((d) => d.event.id === event.id)!;
    expect(() => new Webhook(t.webhookSecret).verify(delivery.raw, delivery.headers)).not.toThrow();
    expect(event.data.walletAddress).toBe(wallet.address);
  });

  it("serve a tenant's operator through the CLI (npm run admin), with TENANT_ID or --tenant and its secret", async () => {
    const t = await createTenant({ name: 'Cli', walletAddressPrefix: prefix() });
    // (not execFileSync: the service under test runs on this thread)
    const admin = (args: string[], env: Record<string, string>) =>
      promisify(execFile)(join(ROOT, 'node_modules/.bin/tsx'), ['infra/local/tools/admin.ts', '--json', ...args], {
        cwd: ROOT,
        env: { ...process.env, ADMIN_API_URL: s.adminUrl, ADMIN_API_SECRET: t.adminApiSecret, TENANT_ID: '', ...env },
      });
    const created = await admin(['POST', '/assets', `{"code":"CLI${n}","scale":2}`], { TENANT_ID: t.id });
    expect(JSON.parse(created.stdout)).toMatchObject({ code: `CLI${n}` });
    const listed = await admin(['--tenant', t.id, 'GET', '/assets?limit=100'], {});
    expect(JSON.parse(listed.stdout).items.map((a: { code: string }) => a.code)).toContain(`CLI${n}`);
    // Without the tenant, its secret is a wrong operator signature.
    await expect(admin(['GET', '/assets'], {})).rejects.toMatchObject({ code: 1, stdout: expect.stringContaining('"status": 401') });
  });

  it('answer a tenant 403 operator_only on every /tenants route, and change nothing', async () => {
    const t = await createTenant({ name: 'Curious', walletAddressPrefix: prefix() });
    const tenant = asTenant(t.id, t.adminApiSecret);
    const before = await mainItems();
    const answers = await Promise.all([
      tenant('POST', '/tenants', { name: 'Mine', walletAddressPrefix: prefix() }),
      tenant('GET', '/tenants'),
      tenant('GET', `/tenants/${t.id}`),
      tenant('PATCH', `/tenants/${t.id}`, { name: 'Renamed' }),
      tenant('DELETE', `/tenants/${t.id}`),
    ]);
    for (const res of answers) expect(problemOf(res)).toEqual({ status: 403, code: 'operator_only' });
    expect(await mainItems()).toBe(before);
    expect((await ok(s.admin('GET', `/tenants/${t.id}`), 200)).name).toBe('Curious');
  });

  it('refuse a bad prefix with 400 naming it, writing nothing', async () => {
    const before = await mainItems();
    const bad = [
      'http://elsewhere.example/acme', // another origin
      s.openPaymentsUrl, // no path: the operator's own
      `${s.openPaymentsUrl}/acme?x=1`,
      `${s.openPaymentsUrl}/acme#frag`,
      `${s.openPaymentsUrl}/incoming-payments`, // the resource server's own path
      `${s.openPaymentsUrl}/t/acme`, // where the tenants' Open Payments servers are
      'ftp://localhost/acme',
      'not a url',
    ];
    for (const walletAddressPrefix of bad) {
      const res = await s.admin('POST', '/tenants', { name: 'Bad', walletAddressPrefix });
      expect(problemOf(res), walletAddressPrefix).toEqual({ status: 400, code: 'invalid_request' });
      expect(res.body.errors, walletAddressPrefix).toEqual([{ field: 'walletAddressPrefix', message: expect.any(String) }]);
    }
    expect(await mainItems()).toBe(before);
  });

  it(`take a prefix of at most ${MAX_PREFIX_SEGMENTS} path segments, under which its wallet addresses have ${MAX_ADDRESS_SEGMENTS}; a deeper one is 400 naming it, writing nothing`, async () => {
    const deep = (segments: number) => prefix(`deep-${++n}${'/d'.repeat(segments - 1)}`);
    const before = await mainItems();
    for (const segments of [MAX_PREFIX_SEGMENTS + 1, 98, 150]) {
      const walletAddressPrefix = deep(segments);
      expect(new URL(walletAddressPrefix).pathname.split('/').length - 1).toBe(segments);
      const res = await s.admin('POST', '/tenants', { name: 'Deep', walletAddressPrefix });
      expect([res.status, res.body.errors], `${segments} segments`).toEqual([
        400,
        [{ field: 'walletAddressPrefix', message: `must have at most ${MAX_PREFIX_SEGMENTS} path segments, not ${segments}` }],
      ]);
    }
    expect(await mainItems()).toBe(before);
    const t = await createTenant({ name: 'Deep', walletAddressPrefix: deep(MAX_PREFIX_SEGMENTS) });
    const tenant = asTenant(t.id, t.adminApiSecret);
    await ok(tenant('POST', '/assets', { code: `DP${n}`, scale: 2 }));
    const wallet = await ok(tenant('POST', '/wallet-addresses', { address: `${t.walletAddressPrefix}/alice`, assetCode: `DP${n}` }));
    expect((await fetch(wallet.address)).status).toBe(200);
    const deeper = await tenant('POST', '/wallet-addresses', { address: `${t.walletAddressPrefix}/alice/x`, assetCode: `DP${n}` });
    expect(problemOf(deeper)).toEqual({ status: 400, code: 'invalid_request' });
    expect(deeper.body.errors).toEqual([
      { field: 'address', message: `must have at most ${MAX_ADDRESS_SEGMENTS} path segments, not ${MAX_ADDRESS_SEGMENTS + 1}` },
    ]);
    await ok(s.admin('DELETE', `/tenants/${t.id}`), 204);
  });

  it('make one tenant of two made at once on nested prefixes', async () => {
    const base = prefix();
    const answers = await Promise.all([
      s.admin('POST', '/tenants', { name: 'Upper', walletAddressPrefix: base }),
      s.admin('POST', '/tenants', { name: 'Lower', walletAddressPrefix: `${base}/lower` }),
      s.admin('POST', '/tenants', { name: 'Same', walletAddressPrefix: `${base}/lower` }),
    ]);
    expect(answers.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of answers.filter((r) => r.status !== 201)) expect(problemOf(r)).toEqual({ status: 409, code: 'wallet_address_prefix_taken' });
  });

  it('refuse an Idempotency-Key on POST /tenants with 400, writing nothing', async () => {
    const before = await mainItems();
    const res = await s.admin('POST', '/tenants', { name: 'Keyed', walletAddressPrefix: prefix() }, { 'idempotency-key': `tenant-${n}` });
    expect(problemOf(res)).toEqual({ status: 400, code: 'idempotency_key_refused' });
    expect(res.body.detail).toContain('secrets');
    expect(await mainItems()).toBe(before);
  });

  it("refuse a change to a tenant's prefix, or no change, with 400", async () => {
    const t = await createTenant({ name: 'Fixed', walletAddressPrefix: prefix() });
    const prefixChange = await s.admin('PATCH', `/tenants/${t.id}`, { walletAddressPrefix: prefix() });
    expect(problemOf(prefixChange)).toEqual({ status: 400, code: 'invalid_request' });
    expect(problemOf(await s.admin('PATCH', `/tenants/${t.id}`, {}))).toEqual({ status: 400, code: 'invalid_request' });
  });

  it('delete a tenant: its next request is 401 at once, its secrets are scheduled for deletion in the emulator, a retry is 204', async () => {
    const t = await createTenant({ name: 'Leaving', walletAddressPrefix: prefix() });
    const tenant = asTenant(t.id, t.adminApiSecret);
    await ok(tenant('GET', '/assets'), 200);
    const res = await s.admin('DELETE', `/tenants/${t.id}`);
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(problemOf(await tenant('GET', '/assets'))).toEqual({ status: 401, code: 'unauthorized' });

    for (const name of ['ADMIN_API_SECRET', 'WEBHOOK_SECRET', 'IDP_SECRET']) {
      const described = await secrets.send(new DescribeSecretCommand({ SecretId: `tenants/${t.id}/${name}` }));
      expect(described.DeletedDate, name).toBeInstanceOf(Date);
    }
    expect(await ok(s.admin('GET', `/tenants/${t.id}`), 200)).toMatchObject({ state: 'deleted', deletedAt: expect.any(String) });
    // Again: 204 (a retry is safe).
    expect((await s.admin('DELETE', `/tenants/${t.id}`)).status).toBe(204);
  });

  it("keep the operator's wallet addresses and the tenants' prefixes apart when both are made at once", async () => {
    const usd = await s.admin('POST', '/assets', { code: 'USD', scale: 2 });
    expect([201, 409]).toContain(usd.status); // the operator's USD, made here or by an earlier test
    const operatorAddress = (address: string) => s.admin('POST', '/wallet-addresses', { address, assetCode: 'USD' });
    // Both at once: exactly one of the two is made, each time.
    for (let i = 0; i < 5; i++) {
      const [tenant, address] = await Promise.all([
        s.admin('POST', '/tenants', { name: `Race ${i}`, walletAddressPrefix: prefix(`race-${i}`) }),
        operatorAddress(`${prefix(`race-${i}`)}/x`),
      ]);
      expect([tenant.status, address.status].sort(), JSON.stringify([tenant.body, address.body])).toEqual([201, 409]);
    }
  });

  it("answer a /t/ path that names no tenant's id 404 on the Open Payments servers, whatever its length", async () => {
    for (const id of ['acme', '9b2f4b8e-2c1d-4f7a-9e3b-0a1b2c3d4e5f', 'x'.repeat(3000), '%E0%A4%A']) {
      const resource = await fetch(`${s.openPaymentsUrl}/t/${id}/incoming-payments/9b2f4b8e-2c1d-4f7a-9e3b-0a1b2c3d4e5f`);
      const auth = await fetch(`${s.authServerUrl}/t/${id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect([resource.status, auth.status], id.slice(0, 40)).toEqual([404, 404]);
    }
  });

  // Issue 42, item 3: the tenant is in the signed string (v3), so a request the operator signed for
  // one tenant is refused for another, or for none (its own data), GET or write; a write once.
  it("take an operator's signature only for the tenant it was made for: a GET or a write resent for another tenant, or none, is 401", async () => {
    const [a, b] = [
      await createTenant({ name: 'Once A', walletAddressPrefix: prefix() }),
      await createTenant({ name: 'Once B', walletAddressPrefix: prefix() }),
    ];
    await ok(asTenant(b.id, b.adminApiSecret)('POST', '/assets', { code: 'BBB', scale: 2 }));
    const get = s.sign('GET', '/assets', '', undefined, undefined, a.id);
    const getFor = (tenant?: string) => s.send('GET', '/assets', { headers: { signature: get, ...(tenant && { 'tenant-id': tenant }) } });
    expect((await getFor(a.id)).status).toBe(200);
    for (const replay of [await getFor(b.id), await getFor(undefined)]) {
      expect(problemOf(replay)).toEqual({ status: 401, code: 'unauthorized' });
      expect(replay.body.detail).toMatch(/does not match/);
    }

    const body = JSON.stringify({ code: 'ONC', scale: 2 });
    const signature = s.sign('POST', '/assets', body, undefined, undefined, a.id);
    const sendFor = (tenant?: string) =>
      s.send('POST', '/assets', { body, headers: { 'content-type': 'application/json', signature, ...(tenant && { 'tenant-id': tenant }) } });
    for (const elsewhere of [await sendFor(b.id), await sendFor(undefined)]) {
      expect(problemOf(elsewhere)).toEqual({ status: 401, code: 'unauthorized' });
      expect(elsewhere.body.detail).toMatch(/does not match/);
    }
    expect((await sendFor(a.id)).status).toBe(201);
    const again = await sendFor(a.id);
    expect(problemOf(again)).toEqual({ status: 401, code: 'unauthorized' });
    expect(again.body.detail).toMatch(/already used/);
    // Nothing reached B or the operator: their assets are as they were.
    const codes = async (res: Promise<Reply>) => (await res).body.items.map((x: { code: string }) => x.code);
    expect(await codes(asTenant(b.id, b.adminApiSecret)('GET', '/assets?limit=100'))).toEqual(['BBB']);
    expect(await codes(s.admin('GET', '/assets?limit=100'))).not.toContain('ONC');
  });
});
