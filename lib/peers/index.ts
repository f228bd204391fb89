import { randomUUID } from 'node:crypto';
import { amountOf, fromLedger, toLedger } from '../amounts';
import { findAssetByCode } from '../assets';
import { DomainError, notFound } from '../errors';
import { event } from '../events';
import { account, balances, emptyAccountCheck, moveFunds } from '../ledger';
import { logger } from '../log';
import { commit } from '../tx';
import type { CreatePeer, Peer, PeerRecord, UpdatePeer } from './schemas';
import * as store from './store';

// Peers: the FSPs this node exchanges ILP packets with. A peer has an asset (the one both agreed to
// transact in), a static ILP address (unique per asset), incoming tokens (with which it calls this
// node's connector; each names one peer), an outgoing token and endpoint (with which this node
// calls its connector), and a liquidity account: the credit line extended to it, which packets
// from it use up and packets to it restore (see lib/ilp).

const tokenInUse = () => new DomainError('conflict', 'auth_token_in_use', 'An incoming auth token is already used by another peer; each token names one peer');

// Amount settings at the asset's scale must fit the ledger.
function checkAmounts(p: { maxPacketAmount?: string | null; liquidityThreshold?: string | null }, scale: number) {
  if (p.maxPacketAmount) toLedger(BigInt(p.maxPacketAmount), scale, 'maxPacketAmount');
  if (p.liquidityThreshold) toLedger(BigInt(p.liquidityThreshold), scale, 'liquidityThreshold');
}

export async function createPeer(input: CreatePeer): Promise<Peer> {
  const asset = await findAssetByCode(input.assetCode);
  if (!asset) throw new DomainError('unprocessable', 'unknown_asset', `No asset with code ${input.assetCode}; create it with POST /assets first`);
  checkAmounts(input, asset.scale);
  const record: PeerRecord = {
    id: randomUUID(),
    name: input.name ?? null,
    staticIlpAddress: input.staticIlpAddress,
    assetId: asset.id,
    assetCode: asset.code,
    assetScale: asset.scale,
    http: { outgoing: { endpoint: input.http.outgoing.endpoint } },
    outgoingAuthToken: input.http.outgoing.authToken,
    incomingTokenHashes: input.http.incoming.authTokens.map(store.tokenHash),
    maxPacketAmount: input.maxPacketAmount ?? null,
    liquidityThreshold: input.liquidityThreshold ?? null,
    createdAt: new Date().toISOString(),
  };
  const failed = await commit(store.insertPeer(record));
  if (failed.includes(1)) {
    throw new DomainError(
      'conflict',
      'peer_exists',
      `There is already a peer at ${input.staticIlpAddress} in ${asset.code}: one peering relationship per address and asset`,
    );
  }
  if (failed.length) throw tokenInUse();
  forgetPeers();
  return store.viewOf(record);
}

export async function getPeerRecord(id: string): Promise<PeerRecord> {
  const p = await store.findPeer(id);
  if (!p) throw notFound('peer', id);
  return p;
}

export async function peerLiquidity(p: PeerRecord): Promise<bigint> {
  return (await balances([account.peer(p.id)])).get(account.peer(p.id)) ?? 0n;
}

export async function getPeer(id: string) {
  const p = await getPeerRecord(id);
  const asset = { code: p.assetCode, scale: p.assetScale };
  return { ...store.viewOf(p), liquidity: amountOf(fromLedger(await peerLiquidity(p), p.assetScale), asset) };
}

export async function listPeers(limit: number, cursor?: string) {
  const page = await store.listPeers(limit, cursor);
  return { items: page.items.map(store.viewOf), nextCursor: page.nextCursor };
}

export async function updatePeer(id: string, input: UpdatePeer): Promise<Peer> {
  const was = await getPeerRecord(id);
  const now: PeerRecord = {
    ...was,
    ...(input.name !== undefined && { name: input.name }),
    ...(input.maxPacketAmount !== undefined && { maxPacketAmount: input.maxPacketAmount }),
    ...(input.liquidityThreshold !== undefined && { liquidityThreshold: input.liquidityThreshold }),
    ...(input.http?.incoming && { incomingTokenHashes: input.http.incoming.authTokens.map(store.tokenHash) }),
    ...(input.http?.outgoing && { http: { outgoing: { endpoint: input.http.outgoing.endpoint } }, outgoingAuthToken: input.http.outgoing.authToken }),
  };
  checkAmounts(now, now.assetScale);
  const { items, claims } = store.replacePeer(was, now);
  const failed = await commit(items);
  if (failed.includes(0)) throw await goneOrChanged(id);
  if (failed.some((i) => claims.includes(i))) throw tokenInUse();
  forgetPeers();
  return store.viewOf(now);
}

// A peer can go only once its liquidity is withdrawn (the check commits with the deletion).
export async function deletePeer(id: string): Promise<void> {
  const p = await getPeerRecord(id);
  const items = [...store.removePeer(p), emptyAccountCheck(account.peer(id))];
  const failed = await commit(items);
  if (failed.includes(items.length - 1)) {
    throw new DomainError('conflict', 'peer_has_liquidity', `Peer ${id} still holds liquidity; withdraw it with POST /peers/${id}/liquidity-withdrawals first`);
  }
  if (failed.length) throw await goneOrChanged(id);
  forgetPeers();
}

// A change made from a read that another request has since overtaken: 404 if the peer went,
// else 409, to read it again and retry.
async function goneOrChanged(id: string): Promise<DomainError> {
  if (!(await store.findPeer(id))) return notFound('peer', id);
  return new DomainError('conflict', 'peer_changed', `Peer ${id} was changed by another request meanwhile; read it again and retry`);
}

// Deposits extend the credit line from the asset's settlement account; withdrawals take it back.
export async function movePeerLiquidity(id: string, value: string, direction: 'deposit' | 'withdrawal', idempotencyKey?: string) {
  const p = await getPeerRecord(id);
  const units = toLedger(BigInt(value), p.assetScale, 'amount');
  if ((await moveFunds(account.peer(id), p.assetId, units, direction, idempotencyKey)) === 'insufficient') {
    throw new DomainError('unprocessable', 'insufficient_liquidity', `Peer ${id} has less liquidity than ${value} (scale ${p.assetScale})`);
  }
  return getPeer(id);
}

// What the connector asks on every packet, kept in this container for a few seconds: a peer
// changed elsewhere (another container) takes effect here within PEER_CACHE_MS; one changed
// here at once.
const PEER_CACHE_MS = 10_000;
const byToken = new Map<string, { peer: PeerRecord; until: number }>();
let everyPeer: { peers: Promise<PeerRecord[]>; until: number } | undefined;

function forgetPeers() {
  byToken.clear();
  everyPeer = undefined;
}

// The peer an incoming auth token belongs to, if any.
export async function peerForToken(token: string): Promise<PeerRecord | undefined> {
  const hash = store.tokenHash(token);
  const kept = byToken.get(hash);
  if (kept && kept.until > Date.now()) return kept.peer;
  const id = await store.findPeerIdByToken(hash);
  const peer = id ? await store.findPeer(id) : undefined;
  if (peer?.incomingTokenHashes.includes(hash)) byToken.set(hash, { peer, until: Date.now() + PEER_CACHE_MS });
  return peer?.incomingTokenHashes.includes(hash) ? peer : undefined;
}

function peers(): Promise<PeerRecord[]> {
  if (!everyPeer || everyPeer.until <= Date.now()) {
    const loading = store.allPeers();
    everyPeer = { peers: loading, until: Date.now() + PEER_CACHE_MS };
    loading.catch(() => (everyPeer = undefined));
  }
  return everyPeer.peers;
}

// The next hop for an ILP address: the peer whose static address is the longest prefix of it (on
// segment boundaries), preferring, among equally long ones, the peer in `assetCode`; the oldest
// peer breaks a remaining tie, so that a route does not flap.
export async function routeTo(destination: string, assetCode?: string): Promise<PeerRecord | undefined> {
  const covers = (p: PeerRecord) => destination === p.staticIlpAddress || destination.startsWith(`${p.staticIlpAddress}.`);
  const candidates = (await peers()).filter(covers);
  const rank = (p: PeerRecord) => [p.staticIlpAddress.length, p.assetCode === assetCode ? 1 : 0, -Date.parse(p.createdAt)];
  return candidates.sort((a, b) => {
    const [x, y] = [rank(a), rank(b)];
    return y[0] - x[0] || y[1] - x[1] || y[2] - x[2];
  })[0];
}

// peer.liquidity_low, once, when packets from the peer took its liquidity (`taken`, ledger units)
// below its threshold. A failed check is logged, never thrown: the packets are settled already.
export async function noteLiquidityTaken(peer: PeerRecord, taken: bigint): Promise<void> {
  if (peer.liquidityThreshold === null) return;
  try {
    const threshold = toLedger(BigInt(peer.liquidityThreshold), peer.assetScale);
    const after = await peerLiquidity(peer);
    if (after < threshold && after + taken >= threshold) {
      const liquidity = amountOf(fromLedger(after, peer.assetScale), { code: peer.assetCode, scale: peer.assetScale });
      await commit([], [event(store.partition(peer.id), 'peer.liquidity_low', { ...store.viewOf(peer), liquidity })]);
    }
  } catch (error) {
    logger.warn('Peer liquidity check failed', { peerId: peer.id, error: (error as Error).message });
  }
}
