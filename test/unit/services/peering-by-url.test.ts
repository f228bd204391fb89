import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGraphql } from '../../../lib/api/graphql';
import { createAsset } from '../../../lib/assets';
import { acceptPeering, getPeerRecord, listPeers, peerByUrl, peerForToken } from '../../../lib/peers';
import { type PeeringRequest, peeringRequest } from '../../../lib/peers/schemas';
import { inMemory, refusal, testNode } from '../../harness/in-memory';

// Peering by URL in memory: what this node sends another node's peering endpoint (Rafiki's shapes),
// the peer it makes or changes from the answer, what it refuses, and the other side: a request
// answered. The other node here is a local HTTP server that answers as Rafiki's auto-peering server
// does (or badly); two nodes of ours peering and paying are test/integration/peering-by-url.test.ts's.
const ON = { AUTO_PEERING_ENABLED: 'true', ILP_CONNECTOR_URL: 'http://localhost:3004/ilp', ALLOW_PRIVATE_PEERS: 'operator' };
const mem = inMemory(ON);

// The other node: answers each request with `reply(body)`, and keeps what it was sent.
let reply: (request: any) => { status: number; body: unknown } = () => ({ status: 500, body: {} });
const received: any[] = [];
let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.on('data', (d) => (text += d));
    req.on('end', () => {
      const request = JSON.parse(text);
      received.push({ method: req.method, contentType: req.headers['content-type'], body: request });
      const { status, body } = reply(request);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

// As Rafiki's acceptPeeringRequest answers: its address, connector, the token it sends with, its name.
const rafikiAnswer = (token: string) => () => ({
  status: 200,
  body: { staticIlpAddress: 'test.rafiki', ilpConnectorUrl: 'http://localhost:5002', httpToken: token, name: 'Rafiki', tenantId: 'x' },
});
const usd = () => createAsset(mem.node, { code: 'USD', scale: 2 });

describe('peering by URL: this node asks', () => {
  it("sends Rafiki's peering request, makes the peer from the answer (each side's token its own), and deposits liquidityToDeposit", async () => {
    await usd();
    reply = rafikiAnswer('rafiki-sends-this-token-0001');
    received.length = 0;
    const peer = await peerByUrl(mem.node, { url, assetCode: 'USD', maxPacketAmount: '5000', liquidityToDeposit: '10000' });
    expect(received).toHaveLength(1);
    const [{ method, contentType, body }] = received;
    expect([method, contentType]).toEqual(['POST', 'application/json']);
    expect(body).toEqual({
      staticIlpAddress: 'test.memory',
      ilpConnectorUrl: 'http://localhost:3004/ilp',
      asset: { code: 'USD', scale: 2 },
      httpToken: expect.stringMatching(/^[\w-]{43}$/),
      maxPacketAmount: 5000, // a number, as Rafiki's
      name: 'test.memory',
    });
    expect(peer).toMatchObject({
      name: 'Rafiki', // the answer's, when the request names none
      staticIlpAddress: 'test.rafiki',
      assetCode: 'USD',
      http: { outgoing: { endpoint: 'http://localhost:5002' } },
      maxPacketAmount: '5000',
      liquidity: { value: '10000', assetCode: 'USD', assetScale: 2 },
    });
    // It sends with the token it sent; it takes the answer's.
    expect((await getPeerRecord(mem.node, peer.id)).outgoingAuthToken).toBe(body.httpToken);
    expect((await peerForToken(mem.node, 'rafiki-sends-this-token-0001', async () => mem.node))?.peer.id).toBe(peer.id);
  });

  it('sent again, changes the same peer: new tokens both ways, the name given, the deposit made again', async () => {
    await usd();
    reply = rafikiAnswer('rafiki-sends-this-token-0002');
    const first = await peerByUrl(mem.node, { url, assetCode: 'USD', liquidityToDeposit: '100' });
    reply = rafikiAnswer('rafiki-sends-this-token-0003');
    received.length = 0;
    const again = await peerByUrl(mem.node, { url, assetCode: 'USD', name: 'Our Rafiki', liquidityToDeposit: '50' });
    expect(again).toMatchObject({ id: first.id, name: 'Our Rafiki', liquidity: { value: '150' } });
    expect(body(received)).not.toHaveProperty('maxPacketAmount');
    expect((await listPeers(mem.node, 10)).items).toHaveLength(1);
    expect(await peerForToken(mem.node, 'rafiki-sends-this-token-0002', async () => mem.node)).toBeUndefined();
    expect((await peerForToken(mem.node, 'rafiki-sends-this-token-0003', async () => mem.node))?.peer.id).toBe(first.id);
    expect((await getPeerRecord(mem.node, first.id)).outgoingAuthToken).toBe(body(received).httpToken);
  });

  it('makes nothing when the other node is unreachable, refuses, or answers what is not an answer (502)', async () => {
    await usd();
    const cases: [typeof reply, string][] = [
      [() => ({ status: 404, body: { error: { code: 404, message: 'Unknown asset', type: 'UnknownAsset' } } }), 'peering_failed'],
      [() => ({ status: 200, body: 'not json' }), 'peering_answer_invalid'],
      [() => ({ status: 200, body: { staticIlpAddress: 'test.rafiki', ilpConnectorUrl: 'http://localhost:5002' } }), 'peering_answer_invalid'],
      [() => ({ status: 200, body: { staticIlpAddress: 'nowhere', ilpConnectorUrl: 'ftp://x', httpToken: 'short' } }), 'peering_answer_invalid'],
    ];
    for (const [answer, code] of cases) {
      reply = answer;
      expect(await refusal(peerByUrl(mem.node, { url, assetCode: 'USD', liquidityToDeposit: '100' }))).toBe(`502 ${code}`);
    }
    reply = () => ({ status: 409, body: { code: 'auth_token_in_use', detail: 'taken' } });
    await expect(peerByUrl(mem.node, { url, assetCode: 'USD' })).rejects.toThrow(/answered 409 auth_token_in_use: taken/);
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const gone = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/peering`;
    await new Promise<void>((r) => closed.close(() => r()));
    expect(await refusal(peerByUrl(mem.node, { url: gone, assetCode: 'USD' }))).toBe('502 peering_failed');
    expect((await listPeers(mem.node, 10)).items).toEqual([]);
  });

  it('refuses before asking: peering by URL off (the default), an unknown asset, a URL inside unless the tenant may peer there', async () => {
    await usd();
    received.length = 0;
    const off = testNode({ ILP_CONNECTOR_URL: ON.ILP_CONNECTOR_URL, ALLOW_PRIVATE_PEERS: 'operator' });
    expect(off.autoPeering.enabled).toBe(false);
    expect(await refusal(peerByUrl(off, { url, assetCode: 'USD' }))).toBe('403 auto_peering_disabled');
    expect(await refusal(peerByUrl(mem.node, { url, assetCode: 'XYZ' }))).toBe('422 unknown_asset');
    const outside = testNode({ ...ON, ALLOW_PRIVATE_PEERS: '' });
    await expect(peerByUrl(outside, { url, assetCode: 'USD' })).rejects.toMatchObject({ code: 'peer_endpoint_internal', fields: [{ field: 'url' }] });
    expect(await refusal(peerByUrl(mem.node, { url, assetCode: 'USD', liquidityToDeposit: '1'.padEnd(38, '0') }))).toBe('400 invalid_request');
    expect(received).toEqual([]);
    expect(() => testNode({ AUTO_PEERING_ENABLED: 'true' })).toThrow(/ILP_CONNECTOR_URL: must be set when AUTO_PEERING_ENABLED is true/);
  });
});

describe('peering by URL: another node asks', () => {
  // A request as Rafiki's initiatePeeringRequest sends it (maxPacketAmount: Number(undefined) is null in JSON).
  const request = (over: Record<string, unknown> = {}): PeeringRequest =>
    peeringRequest.parse({
      staticIlpAddress: 'test.rafiki',
      ilpConnectorUrl: 'http://localhost:5002',
      asset: { code: 'USD', scale: 2 },
      httpToken: 'rafiki-sends-this-token-0101',
      maxPacketAmount: null,
      name: 'Rafiki',
      ...over,
    });

  it('makes the peer with no liquidity, and answers this node, its connector and the token it sends with; asked again, changes it', async () => {
    await usd();
    const answer = await acceptPeering(mem.node, request());
    expect(answer).toEqual({
      staticIlpAddress: 'test.memory',
      ilpConnectorUrl: 'http://localhost:3004/ilp',
      httpToken: expect.stringMatching(/^[\w-]{43}$/),
      name: 'test.memory',
    });
    const [peer] = (await listPeers(mem.node, 10)).items;
    expect(peer).toMatchObject({
      name: 'Rafiki',
      staticIlpAddress: 'test.rafiki',
      http: { outgoing: { endpoint: 'http://localhost:5002' } },
      maxPacketAmount: null,
    });
    expect((await getPeerRecord(mem.node, peer.id)).outgoingAuthToken).toBe(answer.httpToken);
    expect((await peerForToken(mem.node, 'rafiki-sends-this-token-0101', async () => mem.node))?.peer.id).toBe(peer.id);
    const again = await acceptPeering(mem.node, request({ httpToken: 'rafiki-sends-this-token-0102', maxPacketAmount: 7000 }));
    expect(again.httpToken).not.toBe(answer.httpToken);
    const peers = (await listPeers(mem.node, 10)).items;
    expect(peers).toMatchObject([{ id: peer.id, maxPacketAmount: '7000' }]);
    expect(await peerForToken(mem.node, 'rafiki-sends-this-token-0101', async () => mem.node)).toBeUndefined();
  });

  it("refuses while off, an asset it lacks or at another scale, this node's own address, a token another peer has", async () => {
    await usd();
    const off = testNode({ ALLOW_PRIVATE_PEERS: 'operator' });
    expect(await refusal(acceptPeering(off, request()))).toBe('403 auto_peering_disabled');
    expect(await refusal(acceptPeering(mem.node, request({ asset: { code: 'EUR', scale: 2 } })))).toBe('422 unknown_asset');
    expect(await refusal(acceptPeering(mem.node, request({ asset: { code: 'USD', scale: 9 } })))).toBe('422 unknown_asset');
    for (const own of ['test.memory', 'test.memory.tenant'])
      expect(await refusal(acceptPeering(mem.node, request({ staticIlpAddress: own })))).toBe('400 invalid_request');
    await acceptPeering(mem.node, request());
    expect(await refusal(acceptPeering(mem.node, request({ staticIlpAddress: 'test.other' })))).toBe('409 auth_token_in_use');
    expect((await listPeers(mem.node, 10)).items).toHaveLength(1);
  });
});

const body = (r: any[]) => r[0].body;

// Rafiki's Admin API: the same operation, by the asset's id, as Rafiki's clients send it.
describe('peering by URL: GraphQL createOrUpdatePeerByUrl', () => {
  const query = `mutation CreateOrUpdatePeerByUrl($input: CreateOrUpdatePeerByUrlInput!) {
    createOrUpdatePeerByUrl(input: $input) { peer { id name staticIlpAddress liquidity __typename } __typename } }`;
  const gql = async (node: typeof mem.node, input: Record<string, unknown>) =>
    (
      await runGraphql(
        node,
        { operationName: 'CreateOrUpdatePeerByUrl', query, variables: { input } },
        { introspection: false, lambda: { getRemainingTimeInMillis: () => 30_000 } as never },
      )
    ).result;

  it('makes the peer and deposits on it; off, it is FORBIDDEN by name', async () => {
    const asset = await usd();
    reply = rafikiAnswer('rafiki-sends-this-token-0201');
    const made = await gql(mem.node, { assetId: asset.id, peerUrl: url, liquidityToDeposit: '300', idempotencyKey: '6d1c7a52-1f7e-4f0e-9a39-3c1b7e2a9d10' });
    expect(made.errors).toBeUndefined();
    expect((made.data as any).createOrUpdatePeerByUrl.peer).toMatchObject({ name: 'Rafiki', staticIlpAddress: 'test.rafiki', liquidity: '300' });
    const off = await gql(testNode({ ALLOW_PRIVATE_PEERS: 'operator' }), { assetId: asset.id, peerUrl: url });
    expect(off.errors?.map((e) => [e.extensions?.code, e.extensions?.problem])).toEqual([['FORBIDDEN', 'auto_peering_disabled']]);
  });
});
