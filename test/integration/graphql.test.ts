import { createHmac, randomUUID } from 'node:crypto';
import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack';
import { ok } from '../harness/world';

// Rafiki's Admin API at POST /graphql on the Admin API's port, over HTTP as Rafiki's clients call it:
// `signature: t=<ms>, v1=<HMAC of "<t>.<RFC 8785 JSON of the body>">` (computed here independently of
// the service's code), the tenant-id header naming the operator (by "operator" or by the id
// OPERATOR_TENANT_ID gives it) or a tenant, which signs with its own secret. Each signature is taken
// once; another tenant's secret, a stale or a tampered signature is 401, and runs nothing. The
// operations themselves are test/unit/graphql/rafiki-admin.test.ts's, in memory.
const RAFIKI_OPERATOR = '438fa74a-fa7d-4317-9ced-dde32ece1787';
let s: TestStack;
let tenant: { id: string; adminApiSecret: string };

const sign = (secret: string, body: unknown, t = Date.now()) =>
  `t=${t}, v1=${createHmac('sha256', secret)
    .update(`${t}.${canonicalize(body)}`)
    .digest('hex')}`;

async function post(body: unknown, headers: Record<string, string>, raw = JSON.stringify(body)) {
  const res = await fetch(`${s.adminUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: raw });
  return { status: res.status, type: res.headers.get('content-type'), body: await res.json() };
}
const asOperator = (body: unknown, tenantId = 'operator') => post(body, { signature: sign(s.env.ADMIN_API_SECRET, body), 'tenant-id': tenantId });

const createAsset = (code: string) => ({
  operationName: 'CreateAsset',
  variables: { input: { code, scale: 2 } },
  query: 'mutation CreateAsset($input: CreateAssetInput!) { createAsset(input: $input) { asset { id code __typename } __typename } }',
});
const assetByCode = (code: string) => ({
  operationName: 'GetAssetByCodeAndScale',
  variables: { code, scale: 2 },
  query: 'query GetAssetByCodeAndScale($code: String!, $scale: UInt8!) { assetByCodeAndScale(code: $code, scale: $scale) { id code __typename } }',
});

beforeAll(async () => {
  s = await startTestStack({ EXCHANGE_RATES_URL: '', OPERATOR_TENANT_ID: RAFIKI_OPERATOR });
  tenant = await ok(s.admin('POST', '/tenants', { name: 'Acme', walletAddressPrefix: `${s.env.WALLET_ADDRESS_URL}/acme/` }));
});
afterAll(() => s?.stop());

describe('POST /graphql', () => {
  it('runs a request signed with the operator’s secret, for the operator named either way, and answers as GraphQL does', async () => {
    const made = await asOperator(createAsset('GQA'), RAFIKI_OPERATOR);
    expect(made).toMatchObject({ status: 200, type: 'application/json', body: { data: { createAsset: { asset: { code: 'GQA' } } } } });
    expect((await asOperator(assetByCode('GQA'))).body).toEqual({
      data: { assetByCodeAndScale: { id: made.body.data.createAsset.asset.id, code: 'GQA', __typename: 'Asset' } },
    });
    // The REST API sees the same asset.
    expect((await ok(s.admin('GET', `/assets/${made.body.data.createAsset.asset.id}`), 200)).code).toBe('GQA');
    // A refusal of the domain is a GraphQL error in a 200; a document that breaks the schema is a 400.
    expect(await asOperator(createAsset('GQA'))).toMatchObject({
      status: 200,
      body: { errors: [{ extensions: { code: 'DUPLICATE', problem: 'asset_exists' } }] },
    });
    expect(await asOperator({ query: '{ nope }' })).toMatchObject({ status: 400, body: { errors: [{ message: expect.stringContaining('nope') }] } });
  });

  it('takes a signature once: the same request again is 401 and runs nothing', async () => {
    const body = createAsset('GQB');
    const headers = { signature: sign(s.env.ADMIN_API_SECRET, body), 'tenant-id': 'operator' };
    expect((await post(body, headers)).status).toBe(200);
    expect(await post(body, headers)).toMatchObject({
      status: 401,
      type: 'application/problem+json',
      body: { detail: expect.stringContaining('already used') },
    });
    // The same signature however the JSON is spaced or ordered: it is the canonical form that is signed.
    const reordered = JSON.stringify({ query: body.query, variables: body.variables, operationName: body.operationName }, null, 2);
    expect((await post(body, headers, reordered)).status).toBe(401);
  });

  it('refuses another tenant’s secret, a stale or tampered signature, a v3 one and none, with 401 and nothing done', async () => {
    const body = createAsset('GQC');
    const refusals = [
      await post(body, { signature: sign(tenant.adminApiSecret, body), 'tenant-id': 'operator' }),
      await post(body, { signature: sign(s.env.ADMIN_API_SECRET, body, Date.now() - 301_000) }),
      await post({ ...body, variables: { input: { code: 'GQD', scale: 2 } } }, { signature: sign(s.env.ADMIN_API_SECRET, body) }),
      await post(body, { signature: s.sign('POST', '/graphql', JSON.stringify(body)) }),
      await post(body, {}),
    ];
    expect(refusals.map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
    expect(refusals.map((r) => r.body.detail)).toEqual([
      'The signature does not match the request',
      'The signature timestamp is more than 300 s from now',
      'The signature does not match the request',
      expect.stringContaining('"t=<unix milliseconds>, v1=<hex HMAC-SHA256>"'),
      'The signature header is missing',
    ]);
    for (const code of ['GQC', 'GQD']) expect((await asOperator(assetByCode(code))).body.data.assetByCodeAndScale).toBeNull();
  });

  it('acts for a tenant signed with the tenant’s own secret, or the operator’s, and sees that tenant’s data only', async () => {
    const body = createAsset('GQT');
    expect((await post(body, { signature: sign(tenant.adminApiSecret, body), 'tenant-id': tenant.id })).body.data.createAsset.asset.code).toBe('GQT');
    const lookup = assetByCode('GQT');
    expect((await post(lookup, { signature: sign(s.env.ADMIN_API_SECRET, lookup), 'tenant-id': tenant.id })).body.data.assetByCodeAndScale).toMatchObject({
      code: 'GQT',
    });
    expect((await asOperator(assetByCode('GQT'))).body.data.assetByCodeAndScale).toBeNull();
    const other = randomUUID();
    expect((await post(lookup, { signature: sign(tenant.adminApiSecret, lookup), 'tenant-id': other })).status).toBe(401);
  });

  it('refuses a body that is not a GraphQL request as the REST routes refuse bad bodies', async () => {
    const notJson = await post(null, { signature: sign(s.env.ADMIN_API_SECRET, null) }, '{');
    expect(notJson).toMatchObject({ status: 400, type: 'application/problem+json', body: { code: 'malformed_json' } });
    const body = { query: 1 };
    expect(await post(body, { signature: sign(s.env.ADMIN_API_SECRET, body) })).toMatchObject({
      status: 400,
      body: { code: 'invalid_request', detail: expect.stringContaining('query') },
    });
  });
});
