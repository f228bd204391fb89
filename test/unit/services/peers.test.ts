import { describe, expect, it, vi } from 'vitest';
import { createAsset } from '../../../lib/assets';
import {
  createPeer,
  deletePeer,
  getPeer,
  getPeerRecord,
  listPeers,
  movePeerLiquidity,
  noteLiquidityTaken,
  peerForToken,
  routeTo,
  updatePeer,
} from '../../../lib/peers';
import { type CreatePeer, createPeerBody } from '../../../lib/peers/schemas';
import type { Node } from '../../../lib/shared/node';
import { eventsOf, inMemory, ledgerOf, refusal } from '../../harness/in-memory';
import { peerBody } from '../../harness/peers';

// Peers' rules in memory: one peering relationship per address and asset, each incoming token
// to one peer (across tenants too), updates that claim and release tokens, the credit line's
// liquidity and the deletion it blocks, the list newest first, racing changes, and each tenant's
// peers its own. The Admin API's answers, its validation, reconciliation and a peer's endpoint on
// the wire are test/integration/peers.test.ts's and peer-endpoints.test.ts's; racing changes on
// DynamoDB's own transactions are there too.
const mem = inMemory({ ALLOW_PRIVATE_PEERS: 'operator' });

let n = 0;
const body = (over: Partial<CreatePeer> = {}) => peerBody(++n, over);
const withTokens = (tokens: string[], over: Partial<CreatePeer> = {}) => {
  const b = body(over);
  b.http.incoming.authTokens = tokens;
  return b;
};
const assets = async (node: Node = mem.node) => {
  await createAsset(node, { code: 'USD', scale: 2 });
  await createAsset(node, { code: 'EUR', scale: 2 });
};

describe('peers', () => {
  it('creates a peer, never echoing its tokens, and reads it back with its liquidity', async () => {
    await assets();
    const created = await createPeer(mem.node, body({ liquidityThreshold: '500' }));
    // (The whole answer, field by field, is test/integration/peers.test.ts's.)
    expect(created).toMatchObject({ staticIlpAddress: `test.peer-${n}`, assetScale: 2, maxPacketAmount: '1000', liquidityThreshold: '500' });
    expect(JSON.stringify(created)).not.toContain('token');
    expect(await getPeer(mem.node, created.id)).toEqual({ ...created, liquidity: { value: '0', assetCode: 'USD', assetScale: 2 } });
    expect(await refusal(getPeer(mem.node, '3f1c2b9e-8a47-4c51-9d0e-2b7a6f5e4d3c'))).toBe('404 peer_not_found');
    expect(await refusal(createPeer(mem.node, body({ assetCode: 'XYZ' })))).toBe('422 unknown_asset');
  });

  it('keeps one peering relationship per address and asset, and each incoming token to one peer', async () => {
    await assets();
    const first = await createPeer(mem.node, body({ staticIlpAddress: 'test.shared' }));
    expect(await refusal(createPeer(mem.node, body({ staticIlpAddress: 'test.shared' })))).toBe('409 peer_exists');
    const euro = body({ staticIlpAddress: 'test.shared', assetCode: 'EUR' });
    await createPeer(mem.node, euro); // another asset: another relationship
    expect(await refusal(createPeer(mem.node, withTokens(euro.http.incoming.authTokens)))).toBe('409 auth_token_in_use');
    const patch = { http: { incoming: { authTokens: euro.http.incoming.authTokens } } };
    expect(await refusal(updatePeer(mem.node, first.id, patch))).toBe('409 auth_token_in_use');
    // Refused, the peer keeps its own token, and a refused creation claimed nothing.
    expect((await getPeerRecord(mem.node, first.id)).incomingTokenHashes).toHaveLength(1);
    expect((await listPeers(mem.node, 100)).items).toHaveLength(2);
  });

  it('updates name, tokens, endpoint and limits; a dropped token is free again, a kept one still names the peer', async () => {
    await assets();
    const peer = await createPeer(mem.node, withTokens(['an-old-incoming-token-1', 'a-kept-incoming-token-2']));
    const updated = await updatePeer(mem.node, peer.id, {
      name: 'Renamed',
      maxPacketAmount: null,
      liquidityThreshold: '20',
      http: {
        incoming: { authTokens: ['a-brand-new-incoming-token', 'a-kept-incoming-token-2'] },
        outgoing: { authToken: 'a-brand-new-outgoing-token', endpoint: 'http://moved.example/ilp' },
      },
    });
    expect(updated).toMatchObject({
      name: 'Renamed',
      maxPacketAmount: null,
      liquidityThreshold: '20',
      http: { outgoing: { endpoint: 'http://moved.example/ilp' } },
    });
    expect(await getPeer(mem.node, peer.id)).toMatchObject(updated);
    expect((await getPeerRecord(mem.node, peer.id)).outgoingAuthToken).toBe('a-brand-new-outgoing-token');
    const tenantOf = async () => mem.node;
    expect((await peerForToken(mem.node, 'a-brand-new-incoming-token', tenantOf))?.peer.id).toBe(peer.id);
    expect((await peerForToken(mem.node, 'a-kept-incoming-token-2', tenantOf))?.peer.id).toBe(peer.id);
    expect(await peerForToken(mem.node, 'an-old-incoming-token-1', tenantOf)).toBeUndefined();
    await createPeer(mem.node, withTokens(['an-old-incoming-token-1']));
    expect(await refusal(createPeer(mem.node, withTokens(['a-kept-incoming-token-2'])))).toBe('409 auth_token_in_use');
    expect(await refusal(updatePeer(mem.node, '3f1c2b9e-8a47-4c51-9d0e-2b7a6f5e4d3c', { name: 'x' }))).toBe('404 peer_not_found');
  });

  it('moves liquidity in and out, and refuses to delete a peer that still holds some', async () => {
    await assets();
    const peer = await createPeer(mem.node, body());
    expect((await movePeerLiquidity(mem.node, peer.id, '10000', 'deposit')).liquidity.value).toBe('10000');
    expect(await refusal(deletePeer(mem.node, peer.id))).toBe('409 peer_has_liquidity');
    expect(await refusal(movePeerLiquidity(mem.node, peer.id, '10001', 'withdrawal'))).toBe('422 insufficient_liquidity');
    expect((await movePeerLiquidity(mem.node, peer.id, '10000', 'withdrawal')).liquidity.value).toBe('0');
    expect([...ledgerOf(mem.db).values()].reduce((a, b) => a + b, 0n)).toBe(0n);
    await deletePeer(mem.node, peer.id);
    expect(await refusal(getPeer(mem.node, peer.id))).toBe('404 peer_not_found');
    expect(await refusal(deletePeer(mem.node, peer.id))).toBe('404 peer_not_found');
    expect(await refusal(movePeerLiquidity(mem.node, peer.id, '1', 'deposit'))).toBe('404 peer_not_found');
    // Its address and its token are free again.
    await createPeer(mem.node, withTokens([`incoming-token-number-${n}`], { staticIlpAddress: peer.staticIlpAddress }));
  });

  it('says once that packets took its liquidity below its threshold, as peer.liquidity_low', async () => {
    await assets();
    const peer = await createPeer(mem.node, body({ liquidityThreshold: '500' }));
    await movePeerLiquidity(mem.node, peer.id, '1000', 'deposit');
    const record = await getPeerRecord(mem.node, peer.id);
    const units = (v: bigint) => v * 10n ** 18n; // scale 2 -> the ledger's 20
    // What packets took, seen after the ledger moved: 1000 -> 600 stays above, 600 -> 400 crosses, 400 -> 300 was below.
    await movePeerLiquidity(mem.node, peer.id, '400', 'withdrawal');
    await noteLiquidityTaken(mem.node, record, units(400n));
    expect(eventsOf(mem.db, 'peer.liquidity_low')).toEqual([]);
    await movePeerLiquidity(mem.node, peer.id, '200', 'withdrawal');
    await noteLiquidityTaken(mem.node, record, units(200n));
    await movePeerLiquidity(mem.node, peer.id, '100', 'withdrawal');
    await noteLiquidityTaken(mem.node, record, units(100n));
    expect(eventsOf(mem.db, 'peer.liquidity_low')).toEqual([
      { type: 'peer.liquidity_low', data: expect.objectContaining({ id: peer.id, liquidity: { value: '400', assetCode: 'USD', assetScale: 2 } }) },
    ]);
  });

  it('lists peers newest first, a page at a time, each once, with no empty last page', async () => {
    await assets();
    const ids: string[] = [];
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      for (let i = 0; i < 7; i++) {
        ids.unshift((await createPeer(mem.node, body())).id);
        vi.advanceTimersByTime(1);
      }
    } finally {
      vi.useRealTimers();
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listPeers(mem.node, 3, cursor);
      expect(page.items.length).toBeGreaterThan(0);
      expect(page.items.length).toBeLessThanOrEqual(3);
      seen.push(...page.items.map((p) => p.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(ids);
  });

  it('routes to the peer with the longest matching address, and forgets a deleted one at once', async () => {
    await assets();
    const wide = await createPeer(mem.node, body({ staticIlpAddress: 'test.route' }));
    const narrow = await createPeer(mem.node, body({ staticIlpAddress: 'test.route.inner' }));
    expect((await routeTo(mem.node, 'test.route.inner.alice'))?.id).toBe(narrow.id);
    expect((await routeTo(mem.node, 'test.route.other'))?.id).toBe(wide.id);
    expect(await routeTo(mem.node, 'test.routes')).toBeUndefined();
    await deletePeer(mem.node, narrow.id);
    expect((await routeTo(mem.node, 'test.route.inner.alice'))?.id).toBe(wide.id);
  });

  it("keeps a peer's routes (repeats dropped), replaces them on update, and routes by them, never back to `except`", async () => {
    await assets();
    const hub = await createPeer(
      mem.node,
      body({ staticIlpAddress: 'test.hub', routes: createPeerBody.parse({ ...body(), routes: ['test.far', 'test.far'] }).routes }),
    );
    expect(hub.routes).toEqual(['test.far']);
    expect((await getPeer(mem.node, hub.id)).routes).toEqual(['test.far']);
    expect((await routeTo(mem.node, 'test.far.carol'))?.id).toBe(hub.id);
    expect(await routeTo(mem.node, 'test.far.carol', undefined, hub.id)).toBeUndefined();
    expect((await updatePeer(mem.node, hub.id, { routes: ['test.near'] })).routes).toEqual(['test.near']);
    expect(await routeTo(mem.node, 'test.far.carol')).toBeUndefined();
    expect((await routeTo(mem.node, 'test.near.x'))?.id).toBe(hub.id);
    expect((await createPeer(mem.node, body())).routes).toEqual([]);
  });
});

describe('concurrent changes', () => {
  it('lets one of several racing token changes win; the others are 409 and claim nothing', async () => {
    await assets();
    const peer = await createPeer(mem.node, body());
    const tokens = Array.from({ length: 6 }, (_, i) => `racing-token-${i}-0123456789`);
    const results = await Promise.allSettled(tokens.map((t) => updatePeer(mem.node, peer.id, { http: { incoming: { authTokens: [t] } } })));
    const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [tokens[i]] : []));
    expect(won.length).toBeGreaterThanOrEqual(1);
    for (const r of results) if (r.status === 'rejected') expect(await refusal(Promise.reject(r.reason))).toBe('409 peer_changed');
    // Exactly one token is held, a winner's (the last to commit): every other is free for another peer.
    const held: string[] = [];
    for (const t of tokens) {
      const other = await refusal(createPeer(mem.node, withTokens([t]))).catch(() => 'made');
      expect(['made', '409 auth_token_in_use'], t).toContain(other);
      if (other !== 'made') held.push(t);
    }
    expect(held).toHaveLength(1);
    expect(won).toContain(held[0]);
  });

  it('refuses a change to a peer deleted since it was read with 404, and one changed since with 409', async () => {
    await assets();
    const peer = await createPeer(mem.node, body());
    const [renamed, deleted] = await Promise.allSettled([updatePeer(mem.node, peer.id, { name: 'Late' }), deletePeer(mem.node, peer.id)]);
    // Both read the same record: the first to commit wins, the other finds it gone or changed.
    expect([renamed, deleted].filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    if (renamed.status === 'rejected') expect(await refusal(Promise.reject(renamed.reason))).toBe('404 peer_not_found');
    if (deleted.status === 'rejected') expect(await refusal(Promise.reject(deleted.reason))).toBe('409 peer_changed');
  });
});

describe("a tenant's peers", () => {
  const acme = () => mem.tenant({ id: '5a1e0b6e-2f3c-4d5e-8f90-a1b2c3d4e5f6', walletAddressPrefix: 'https://wallet.example/acme', ilpAddressSuffix: 'tacme' });
  const other = () =>
    mem.tenant({ id: '6b2f1c7f-3a4d-4e6f-9a01-b2c3d4e5f6a7', walletAddressPrefix: 'https://wallet.example/other', ilpAddressSuffix: 'tother' });
  // A tenant may not peer at an internal address (ALLOW_PRIVATE_PEERS names the operator only).
  const publicEndpoint = { endpoint: 'http://8.8.8.8/ilp', authToken: 'outgoing-token-public-peer' };

  it("are the tenant's own: the same address in another tenant is another relationship, invisible to the rest", async () => {
    await assets(acme());
    await assets(other());
    const a = await createPeer(
      acme(),
      body({ staticIlpAddress: 'test.same', http: { incoming: { authTokens: ['acme-incoming-token-0001'] }, outgoing: publicEndpoint } }),
    );
    const b = await createPeer(
      other(),
      body({ staticIlpAddress: 'test.same', http: { incoming: { authTokens: ['other-incoming-token-001'] }, outgoing: publicEndpoint } }),
    );
    expect((await listPeers(acme(), 100)).items.map((p) => p.id)).toEqual([a.id]);
    expect((await listPeers(other(), 100)).items.map((p) => p.id)).toEqual([b.id]);
    expect((await listPeers(mem.node, 100)).items).toEqual([]);
    expect(await refusal(getPeer(other(), a.id))).toBe('404 peer_not_found');
    expect(await refusal(getPeer(mem.node, a.id))).toBe('404 peer_not_found');
    expect(await refusal(deletePeer(other(), a.id))).toBe('404 peer_not_found');
    expect(await refusal(movePeerLiquidity(other(), a.id, '1', 'deposit'))).toBe('404 peer_not_found');
    // A token names one peer of one tenant: another tenant's peer may not take it.
    const stolen = body({ http: { incoming: { authTokens: ['acme-incoming-token-0001'] }, outgoing: publicEndpoint } });
    expect(await refusal(createPeer(other(), stolen))).toBe('409 auth_token_in_use');
    const found = await peerForToken(mem.node, 'acme-incoming-token-0001', async (id) => (id === acme().tenant.id ? acme() : undefined));
    expect([found?.node.tenant.id, found?.peer.id]).toEqual([acme().tenant.id, a.id]);
  });

  it('are refused at an internal address, when made and when changed', async () => {
    await assets(acme());
    for (const endpoint of ['http://127.0.0.1:9/ilp', 'http://10.1.2.3/ilp', 'http://[::1]/ilp']) {
      const internal = body({ http: { incoming: { authTokens: [`internal-token-${n}-0123`] }, outgoing: { endpoint, authToken: 'outgoing-token-internal' } } });
      expect(await refusal(createPeer(acme(), internal)), endpoint).toBe('422 peer_endpoint_internal');
    }
    const peer = await createPeer(acme(), body({ http: { incoming: { authTokens: ['acme-public-token-0001'] }, outgoing: publicEndpoint } }));
    const moved = updatePeer(acme(), peer.id, { http: { outgoing: { endpoint: 'http://127.0.0.1:9/ilp', authToken: 'outgoing-token-internal' } } });
    expect(await refusal(moved)).toBe('422 peer_endpoint_internal');
    expect((await getPeer(acme(), peer.id)).http.outgoing.endpoint).toBe(publicEndpoint.endpoint);
    expect((await listPeers(acme(), 100)).items).toHaveLength(1);
  });
});
