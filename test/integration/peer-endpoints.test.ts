import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Reply, startTestStack, type TestStack, tenantAdmin } from '../harness/stack';
import { ok } from '../harness/world';
import { type HostileServer, startHostileServer } from '../servers/hostile-server';

// Issue 42: a tenant made a peer at test.node-a whose connector was http://127.0.0.1:8000/ (DynamoDB
// Local), quoted an incoming payment under that address, and the node POSTed there with the peer's
// bearer token and answered 502 with the target's status and the start of its body. A tenant's
// peer may not be inside the node's network (unless ALLOW_PRIVATE_PEERS names it: here, the test
// stacks' default, only the operator's peers may), neither when it is made or changed nor when a
// packet would leave; and no peer's error answer reaches the client.
let s: TestStack;
let inside: HostileServer; // stands for anything on the node's network: it must hear nothing
let tenant: { id: string; admin: TestStack['admin']; alice: string; ilpAddress: string; intentUrl: string };
let operator: { alice: string; intentUrl: string };
const ENDPOINT = 'http.outgoing.endpoint';
const peerBody = (staticIlpAddress: string, endpoint: string, n: number) => ({
  staticIlpAddress,
  assetCode: 'USD',
  http: { incoming: { authTokens: [`peer-endpoints-incoming-${n}-0123`] }, outgoing: { authToken: `peer-endpoints-secret-token-${n}`, endpoint } },
});
const internalEndpoints = () => [
  `http://127.0.0.1:${inside.port}/`,
  `http://localhost:${inside.port}/`,
  `http://[::1]:${inside.port}/`,
  `http://[::ffff:127.0.0.1]:${inside.port}/`,
  'http://169.254.169.254/latest/meta-data/',
  'http://10.0.0.1/ilp',
];

beforeAll(async () => {
  inside = await startHostileServer((_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('SECRET-INSIDE-BODY: table t1 has 3 items'));
  s = await startTestStack({ EXCHANGE_RATES_URL: '', ILP_ADDRESS: 'test.node-a' });
  const prefix = `${s.openPaymentsUrl}/acme`;
  const t = await ok(s.admin('POST', '/tenants', { name: 'Acme', walletAddressPrefix: prefix }));
  const admin = tenantAdmin(s.adminUrl, t.id, t.adminApiSecret);
  await ok(admin('POST', '/assets', { code: 'USD', scale: 2 }));
  const alice = (await ok(admin('POST', '/wallet-addresses', { address: `${prefix}/alice`, assetCode: 'USD' }))).address;
  const bob = (await ok(admin('POST', '/wallet-addresses', { address: `${prefix}/bob`, assetCode: 'USD' }))).address;
  const tenantIntent = await ok(admin('POST', '/payment-intents', { walletAddress: bob, incomingAmount: { value: '100', assetCode: 'USD', assetScale: 2 } }));
  tenant = { id: t.id, admin, alice, ilpAddress: `test.node-a.${t.ilpAddressSuffix}`, intentUrl: tenantIntent.url };

  await ok(s.admin('POST', '/assets', { code: 'USD', scale: 2 }));
  const opAlice = (await ok(s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/alice`, assetCode: 'USD' }))).address;
  const opBob = (await ok(s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/bob`, assetCode: 'USD' }))).address;
  const opIntent = await ok(s.admin('POST', '/payment-intents', { walletAddress: opBob, incomingAmount: { value: '100', assetCode: 'USD', assetScale: 2 } }));
  operator = { alice: opAlice, intentUrl: opIntent.url };
});
afterAll(async () => {
  await s?.stop();
  await inside?.stop();
});

const refusedAtEndpoint = (res: Reply, what: string) => {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(422);
  expect(res.body, what).toMatchObject({ code: 'peer_endpoint_internal', errors: [{ field: ENDPOINT }] });
};

describe("a tenant's peer", () => {
  it('is refused at an internal address, by literal or by name, when made and when changed; the address hears nothing', async () => {
    let n = 0;
    for (const endpoint of internalEndpoints())
      refusedAtEndpoint(await tenant.admin('POST', '/peers', peerBody('test.inside', endpoint, n++)), `POST ${endpoint}`);
    expect((await ok(tenant.admin('GET', '/peers?limit=10'), 200)).items).toEqual([]);

    // A name that does not resolve now is taken (it is checked again at every connection).
    const peer = await ok(tenant.admin('POST', '/peers', peerBody('test.elsewhere', 'http://peer.invalid/ilp', n++)));
    for (const endpoint of internalEndpoints()) {
      const res = await tenant.admin('PATCH', `/peers/${peer.id}`, { http: { outgoing: { authToken: 'peer-endpoints-secret-token-x', endpoint } } });
      refusedAtEndpoint(res, `PATCH ${endpoint}`);
    }
    expect((await ok(tenant.admin('GET', `/peers/${peer.id}`), 200)).http.outgoing.endpoint).toBe('http://peer.invalid/ilp');
    expect(inside.tally.requests).toBe(0);
  });

  it('whose stored endpoint is internal (made before this check, or a name that resolves there now) is refused when a packet would leave: nothing is sent', async () => {
    const peer = await ok(tenant.admin('POST', '/peers', peerBody('test.node-a', 'http://peer.invalid/ilp', 100)));
    // As a peer made before the check was stored; by name, which the check at connect time resolves.
    await s.dynamo.send(
      new UpdateItemCommand({
        TableName: s.env.MAIN_TABLE,
        Key: { pk: { S: `T#${tenant.id}#PEER#${peer.id}` }, sk: { S: 'PEER' } },
        UpdateExpression: 'SET #http.#outgoing.#endpoint = :e',
        ExpressionAttributeNames: { '#http': 'http', '#outgoing': 'outgoing', '#endpoint': 'endpoint' },
        ExpressionAttributeValues: { ':e': { S: `http://localhost:${inside.port}/` } },
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
    expect((await ok(tenant.admin('GET', `/peers/${peer.id}`), 200)).http.outgoing.endpoint).toBe(`http://localhost:${inside.port}/`);

    const res = await tenant.admin('POST', '/quotes', { walletAddress: tenant.alice, receiver: operator.intentUrl });
    expect(inside.tally.requests, JSON.stringify(res.body)).toBe(0);
    expect(res.status, JSON.stringify(res.body)).toBe(502);
    expect(res.body).toMatchObject({ code: 'peer_unreachable', detail: expect.stringContaining('internal address') });
  });
});

describe("the operator's peer (ALLOW_PRIVATE_PEERS=operator)", () => {
  it('may be on this machine; its error answer reaches the client as its status, never its body', async () => {
    await ok(s.admin('POST', '/peers', peerBody(tenant.ilpAddress, `http://localhost:${inside.port}/ilp`, 200)));
    const res = await s.admin('POST', '/quotes', { walletAddress: operator.alice, receiver: tenant.intentUrl });
    expect(inside.tally.requests).toBeGreaterThan(0);
    expect(res.status, JSON.stringify(res.body)).toBe(502);
    expect(res.body).toMatchObject({ code: 'peer_unreachable', detail: expect.stringContaining('HTTP 500') });
    expect(JSON.stringify(res.body)).not.toMatch(/SECRET|table t1/);
  });
});
