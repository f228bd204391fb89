import { generateKeyPairSync } from 'node:crypto';
import { generateJwk } from '@interledger/http-signature-utils';
import { type AuthenticatedClient, createAuthenticatedClient, isFinalizedGrantWithAccessToken } from '@interledger/open-payments';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack, tenantAdmin } from '../harness/stack';
import { ok } from '../harness/world';
import { startWebhookReceiver, TEST_WEBHOOK_SECRET, type WebhookReceiver } from '../servers/webhook-receiver';

// The FSP's view of its users' Open Payments grants (GET /grants, GET /grants/{id}) and its
// revocation of one (POST /grants/{id}/revoke), through the official Open Payments client: a revoked grant's token is
// refused at the client's next request.
let s: TestStack;
let events: WebhookReceiver;
let alice: { id: string; address: string };
let bob: { id: string; address: string };
let aliceApp: AuthenticatedClient; // an app that names itself by alice's wallet address
let bobApp: AuthenticatedClient;

type Issued = { id: string; token: string; manage: string };

// A wallet address with a key, and an Open Payments client that signs with it.
async function withApp(admin: TestStack['admin'], address: string): Promise<[{ id: string; address: string }, AuthenticatedClient]> {
  const wallet = await ok(admin('POST', '/wallet-addresses', { address, assetCode: 'USD', publicName: 'Someone' }));
  const { privateKey } = generateKeyPairSync('ed25519');
  await ok(admin('POST', `/wallet-addresses/${wallet.id}/keys`, generateJwk({ privateKey, keyId: `${wallet.id}-key` })));
  return [wallet, await createAuthenticatedClient({ walletAddressUrl: wallet.address, privateKey, keyId: `${wallet.id}-key`, validateResponses: true })];
}

async function grantOf(app: AuthenticatedClient, authServer: string, access: unknown[]): Promise<Issued> {
  const g = await app.grant.request({ url: authServer }, { access_token: { access } } as never);
  if (!isFinalizedGrantWithAccessToken(g)) throw new Error('expected a grant issued at once');
  return { id: g.continue.uri.split('/').at(-1)!, token: g.access_token.value, manage: g.access_token.manage };
}
const incoming = (identifier: string) => [{ type: 'incoming-payment', actions: ['create', 'read', 'list'], identifier }];

beforeAll(async () => {
  events = await startWebhookReceiver();
  s = await startTestStack({ EXCHANGE_RATES_URL: '', WEBHOOK_URL: events.url, WEBHOOK_SECRET: TEST_WEBHOOK_SECRET });
  await ok(s.admin('POST', '/assets', { code: 'USD', scale: 2 }));
  [alice, aliceApp] = await withApp(s.admin, `${s.openPaymentsUrl}/alice`);
  [bob, bobApp] = await withApp(s.admin, `${s.openPaymentsUrl}/bob`);
});
afterAll(async () => {
  await s?.stop();
  await events?.stop();
});

const ids = (page: { items: Array<{ id: string }> }) => page.items.map((g) => g.id);
const list = async (query: string) => ok(s.admin('GET', `/grants${query}`), 200);

describe('GET /grants', () => {
  it('lists each grant newest first with its client, access, state and wallet address, filtered and paged', async () => {
    const first = await grantOf(aliceApp, s.authServerUrl, incoming(alice.address));
    const second = await grantOf(bobApp, s.authServerUrl, [{ type: 'quote', actions: ['create', 'read'], identifier: bob.address }]);
    const third = await grantOf(aliceApp, s.authServerUrl, incoming(bob.address));

    const all = await list('');
    expect(ids(all).slice(0, 3)).toEqual([third.id, second.id, first.id]);
    expect(all.items[1]).toEqual({
      id: second.id,
      state: 'approved',
      client: { walletAddress: bob.address },
      walletAddress: bob.address,
      access: [{ type: 'quote', actions: ['create', 'read'], identifier: bob.address }],
      createdAt: expect.any(String),
    });
    expect(JSON.stringify(all)).not.toMatch(/token|hash/i); // never a token, nor what stands for one

    // By wallet address (its URL in any letter case, or its id), by client, by state.
    expect(ids(await list(`?walletAddress=${encodeURIComponent(bob.address.replace('/bob', '/BOB'))}`))).toEqual([third.id, second.id]);
    expect(ids(await list(`?walletAddress=${bob.id}`))).toEqual([third.id, second.id]);
    expect(ids(await list(`?client=${encodeURIComponent(`${alice.address}/`)}`))).toEqual([third.id, first.id]);
    expect(ids(await list(`?client=${encodeURIComponent(alice.address)}&walletAddress=${bob.id}`))).toEqual([third.id]);
    expect(ids(await list('?state=revoked'))).not.toContain(first.id);
    // A wallet address that is not there has none.
    expect(await list(`?walletAddress=${encodeURIComponent(`${s.openPaymentsUrl}/nobody`)}`)).toEqual({ items: [], nextCursor: null });
    expect(await list('?walletAddress=7d9b2d2c-1111-4222-8333-944455556666')).toEqual({ items: [], nextCursor: null });

    // Paged one at a time, they come in the same order, each once.
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: Array<{ id: string }>; nextCursor: string | null } = await list(
        `?walletAddress=${alice.id}&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
      );
      paged.push(...ids(page));
      cursor = page.nextCursor;
    } while (cursor);
    expect(paged).toEqual([first.id]);
  });

  it('refuses bad filters with a 400 naming each', async () => {
    for (const [query, field] of [
      ['?walletAddress=not-a-url', 'walletAddress'],
      ['?walletAddress=https%3A%2F%2Felsewhere.example%2Falice', 'walletAddress'],
      ['?client=alice', 'client'],
      ['?state=live', 'state'],
      ['?limit=0', 'limit'],
      ['?cursor=%25%25', 'cursor'],
      ['?colour=red', 'colour'],
    ]) {
      const res = await s.admin('GET', `/grants${query}`);
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type'), query).toBe('application/problem+json');
      expect(
        res.body.errors.map((e: { field: string }) => e.field),
        query,
      ).toContain(`query.${field}`);
    }
  });
});

describe('GET /grants/{id}', () => {
  it('answers one grant as the list shows it, never its token, and its state as it changes', async () => {
    const g = await grantOf(bobApp, s.authServerUrl, [{ type: 'quote', actions: ['create', 'read'], identifier: bob.address }]);
    const one = await ok(s.admin('GET', `/grants/${g.id}`), 200);
    // Field for field the list's item (whose every field the list's test names).
    expect((await list(`?walletAddress=${bob.id}`)).items.find((i: { id: string }) => i.id === g.id)).toEqual(one);
    expect(one).toMatchObject({ id: g.id, state: 'approved', client: { walletAddress: bob.address }, walletAddress: bob.address });
    expect(JSON.stringify(one)).not.toMatch(/token|hash/i);

    const revoked = await ok(s.admin('POST', `/grants/${g.id}/revoke`), 200);
    expect(await ok(s.admin('GET', `/grants/${g.id}`), 200)).toEqual(revoked);
  });

  it('answers 404 for a grant that is not there, or an id that is not one, as problem+json', async () => {
    const res = await s.admin('GET', '/grants/7d9b2d2c-1111-4222-8333-944455556666');
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body).toMatchObject({ status: 404, code: 'grant_not_found', detail: 'No grant with id 7d9b2d2c-1111-4222-8333-944455556666' });
    // As for every route's path id: one that cannot exist names no resource.
    expect((await s.admin('GET', '/grants/not-an-id')).body).toMatchObject({ status: 404, code: 'not_found' });
    expect((await s.admin('GET', '/grants/7d9b2d2c-1111-4222-8333-944455556666?state=approved')).status).toBe(400);
  });
});

describe('POST /grants/{id}/revoke', () => {
  it('revokes the grant and its token at once: the official client’s next call is refused, and a revocation again answers it as it is', async () => {
    const g = await grantOf(aliceApp, s.authServerUrl, incoming(alice.address));
    const read = (token: string) => aliceApp.incomingPayment.list({ url: s.openPaymentsUrl, walletAddress: alice.address, accessToken: token });
    await expect(read(g.token)).resolves.toMatchObject({ result: [] });

    const revoked = await ok(s.admin('POST', `/grants/${g.id}/revoke`), 200);
    expect(revoked).toMatchObject({ id: g.id, state: 'revoked', client: { walletAddress: alice.address }, walletAddress: alice.address });
    await expect(read(g.token)).rejects.toMatchObject({ status: 401 });
    await expect(aliceApp.token.rotate({ url: g.manage, accessToken: g.token })).rejects.toMatchObject({ status: 401 });
    const told = await events.waitForEvent('grant.revoked', (d) => d.id === g.id);
    expect(told.data).toEqual(revoked);

    expect(await ok(s.admin('POST', `/grants/${g.id}/revoke`), 200)).toEqual(revoked);
    expect(ids(await list(`?state=revoked&walletAddress=${alice.id}`))).toContain(g.id);
    expect(ids(await list(`?state=approved&walletAddress=${alice.id}`))).not.toContain(g.id);
    // Another grant of the same app is untouched.
    const other = await grantOf(aliceApp, s.authServerUrl, incoming(alice.address));
    await expect(read(other.token)).resolves.toMatchObject({ result: [] });
  });

  it('answers 404 for a grant that is not there, or an id that is not one', async () => {
    const res = await s.admin('POST', '/grants/7d9b2d2c-1111-4222-8333-944455556666/revoke');
    expect(res.body).toMatchObject({ status: 404, code: 'grant_not_found' });
    expect((await s.admin('POST', '/grants/not-an-id/revoke')).status).toBe(404);
  });
});

describe('a tenant’s grants', () => {
  it('are its own: the operator neither lists, reads nor revokes them, and the tenant does', async () => {
    const t = await ok(s.admin('POST', '/tenants', { name: 'Grants Tenant', walletAddressPrefix: `${s.openPaymentsUrl}/gt` }));
    const admin = tenantAdmin(s.adminUrl, t.id, t.adminApiSecret);
    await ok(admin('POST', '/assets', { code: 'USD', scale: 2 }));
    const [wallet, app] = await withApp(admin, `${s.openPaymentsUrl}/gt/carol`);
    const g = await grantOf(app, `${s.authServerUrl}/t/${t.id}`, incoming(wallet.address));

    expect(ids(await list(''))).not.toContain(g.id);
    expect((await s.admin('POST', `/grants/${g.id}/revoke`)).status).toBe(404);
    expect((await s.admin('GET', `/grants/${g.id}`)).body).toMatchObject({ status: 404, code: 'grant_not_found' });
    expect(ids(await ok(admin('GET', '/grants'), 200))).toEqual([g.id]);
    expect(await ok(admin('GET', `/grants/${g.id}`), 200)).toMatchObject({ id: g.id, state: 'approved', walletAddress: wallet.address });
    expect(ids(await ok(admin('GET', `/grants?walletAddress=${alice.id}`), 200))).toEqual([]); // the operator's wallet address is no id of its
    expect((await ok(admin('POST', `/grants/${g.id}/revoke`), 200)).state).toBe('revoked');
  });
});
