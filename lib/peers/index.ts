import { findAssetByCode } from '../assets';
import { assetErrors } from '../assets/errors';
import { account, balanceOf, holdsNothing, moveFunds } from '../ledger';
import { ledgerErrors } from '../ledger/errors';
import { event } from '../platform/events';
import { newId } from '../platform/ids';
import { logger } from '../platform/log';
import { internalRange } from '../platform/net/fetch';
import { commit } from '../platform/tx';
import { amountOf, fromLedger, toLedger } from '../shared/amounts';
import { DomainError, invalidField } from '../shared/errors';
import { mayPeerPrivately, type Node } from '../shared/node';
import { peerErrors } from './errors';
import { newPeerToken, requestPeering } from './peering';
import { bestRoute } from './rules';
import type { CreatePeer, Peer, PeerByUrl, PeeringAnswer, PeeringRequest, PeerRecord, UpdatePeer } from './schemas';
import * as store from './store';

export { peerLookup } from './store';

// Peers: the FSPs this node exchanges ILP packets with. A peer has an asset (the one both agreed to
// transact in), a static ILP address (unique per asset), incoming tokens (with which it calls this
// node's connector; each names one peer), an outgoing token and endpoint (with which this node
// calls its connector), and a liquidity account: the credit line extended to it, which packets
// from it use up and packets to it restore (see lib/ilp).

// Amount settings at the asset's scale must fit the ledger.
function checkAmounts(p: { maxPacketAmount?: string | null; liquidityThreshold?: string | null }, scale: number) {
  if (p.maxPacketAmount) toLedger(BigInt(p.maxPacketAmount), scale, 'maxPacketAmount');
  if (p.liquidityThreshold) toLedger(BigInt(p.liquidityThreshold), scale, 'liquidityThreshold');
}

// A peer's connector is where the tenant says: unless the deployment lets it (ALLOW_PRIVATE_PEERS),
// not inside the node's network, where it would reach the node's own services with this node's
// token (checked again at every connection: lib/ilp/link.ts). A name that does not resolve now is
// taken.
async function checkEndpoint(node: Node, endpoint: string, field?: string): Promise<void> {
  if (!mayPeerPrivately(node) && (await internalRange(endpoint))) throw peerErrors.internalEndpoint(endpoint, field);
}

export async function createPeer(node: Node, input: CreatePeer): Promise<Peer> {
  const asset = await findAssetByCode(node, input.assetCode);
  if (!asset) throw assetErrors.unknown(input.assetCode);
  checkAmounts(input, asset.scale);
  await checkEndpoint(node, input.http.outgoing.endpoint);
  const record: PeerRecord = {
    id: newId(),
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
    routes: input.routes ?? [],
    createdAt: new Date().toISOString(),
  };
  const refusals = await commit(node, store.insertPeer(node, record));
  if (refusals.includes('peer_exists')) {
    throw peerErrors.exists(input.staticIlpAddress, asset.code);
  }
  if (refusals.includes('auth_token_in_use')) throw peerErrors.tokenInUse();
  if (refusals.length) throw new Error(`Peer ${record.id} could not be created: ${refusals.join(', ')}`);
  forgetPeers();
  return store.viewOf(record);
}

// Peering by URL (docs/interledger.md): this node asks the node at `url` to peer (Rafiki's
// createOrUpdatePeerByUrl), then makes or changes its own peer from the answer, and deposits
// liquidityToDeposit on it. Each side makes the token it sends its packets with and tells the other.
// The other side commits its peer before it answers: a failure after that leaves it a peer whose
// tokens this side never got, which the request sent again replaces (each side makes or changes
// the one peer at that address and asset), so a retry is safe; nothing here is made before the answer.
export async function peerByUrl(node: Node, input: PeerByUrl) {
  const connectorUrl = autoPeeringConnector(node);
  const asset = await findAssetByCode(node, input.assetCode);
  if (!asset) throw assetErrors.unknown(input.assetCode);
  checkAmounts(input, asset.scale);
  const deposit = input.liquidityToDeposit && input.liquidityToDeposit !== '0' ? input.liquidityToDeposit : undefined;
  if (deposit) toLedger(BigInt(deposit), asset.scale, 'liquidityToDeposit');
  await checkEndpoint(node, input.url, 'url');
  const token = newPeerToken();
  const answer = await requestPeering(
    input.url,
    {
      staticIlpAddress: node.ilpAddress,
      ilpConnectorUrl: connectorUrl,
      asset: { code: asset.code, scale: asset.scale },
      httpToken: token,
      ...(input.maxPacketAmount && { maxPacketAmount: Number(input.maxPacketAmount) }),
      name: node.ilpAddress,
    },
    mayPeerPrivately(node),
  );
  const peer = await madeOrChanged(node, asset.id, answer.staticIlpAddress, {
    name: input.name ?? answer.name,
    assetCode: asset.code,
    http: { incoming: { authTokens: [answer.httpToken] }, outgoing: { authToken: token, endpoint: answer.ilpConnectorUrl } },
    maxPacketAmount: input.maxPacketAmount,
    liquidityThreshold: input.liquidityThreshold,
  });
  return deposit ? movePeerLiquidity(node, peer.id, deposit, 'deposit') : getPeer(node, peer.id);
}

// The other side of it: a node's peering request (POST /peering on the connector's API), which
// makes or changes this node's peer at its address in the asset it names, and answers where and
// with which token this node sends it packets. The peer gets no liquidity: what credit to extend to
// a node that asked is the operator's to decide (Rafiki gives it Number.MAX_SAFE_INTEGER).
export async function acceptPeering(node: Node, request: PeeringRequest): Promise<PeeringAnswer & { name: string }> {
  const connectorUrl = autoPeeringConnector(node);
  const asset = await findAssetByCode(node, request.asset.code);
  if (!asset || asset.scale !== request.asset.scale) throw assetErrors.unknown(`${request.asset.code} at scale ${request.asset.scale}`);
  // This node's own address, or one under it (its tenants'), is no other node's.
  if (`${request.staticIlpAddress}.`.startsWith(`${node.ilpAddress}.`))
    throw invalidField('staticIlpAddress', `is this node's own address, ${node.ilpAddress}, or under it`);
  const token = newPeerToken();
  await madeOrChanged(node, asset.id, request.staticIlpAddress, {
    name: request.name,
    assetCode: asset.code,
    http: { incoming: { authTokens: [request.httpToken] }, outgoing: { authToken: token, endpoint: request.ilpConnectorUrl } },
    maxPacketAmount: request.maxPacketAmount,
  });
  return { staticIlpAddress: node.ilpAddress, ilpConnectorUrl: connectorUrl, httpToken: token, name: node.ilpAddress };
}

// The connector URL a peering exchange gives; refused (403) while peering by URL is off.
export function autoPeeringConnector(node: Node): string {
  if (!node.autoPeering.enabled || !node.autoPeering.connectorUrl) throw peerErrors.autoPeeringOff();
  return node.autoPeering.connectorUrl;
}

// The peer at this address in this asset, changed (its tokens, endpoint and the settings given),
// else made. Two exchanges at once: the one whose create finds the address taken changes the peer,
// and one that finds the peer changed meanwhile reads it again.
async function madeOrChanged(node: Node, assetId: string, staticIlpAddress: string, fields: Omit<CreatePeer, 'staticIlpAddress'>): Promise<Peer> {
  for (let attempt = 1; ; attempt++) {
    const id = await store.peerIdAt(node, assetId, staticIlpAddress);
    try {
      if (!id) return await createPeer(node, { ...fields, staticIlpAddress });
      const { assetCode: _, ...change } = fields;
      return await updatePeer(node, id, Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined)));
    } catch (e) {
      const raced = e instanceof DomainError && [peerErrors.exists.code, peerErrors.changed.code, peerErrors.notFound.code].includes(e.code);
      if (!raced || attempt === 3) throw e;
    }
  }
}

// Every peer (routing keeps its own copy for a few seconds; the ledger check reads them all).
export const allPeers = (node: Node) => store.allPeers(node);

// The peer, if there is one with this id (for payments that name it).
export const findPeer = (node: Node, id: string) => store.findPeer(node, id);

export async function getPeerRecord(node: Node, id: string): Promise<PeerRecord> {
  const p = await store.findPeer(node, id);
  if (!p) throw peerErrors.notFound(id);
  return p;
}

export const peerLiquidity = (node: Node, p: PeerRecord): Promise<bigint> => balanceOf(node, account.peer(p.id));

export async function getPeer(node: Node, id: string) {
  const p = await getPeerRecord(node, id);
  const asset = { code: p.assetCode, scale: p.assetScale };
  return { ...store.viewOf(p), liquidity: amountOf(fromLedger(await peerLiquidity(node, p), p.assetScale), asset) };
}

export async function listPeers(node: Node, limit: number, cursor?: string) {
  const page = await store.listPeers(node, limit, cursor);
  return { items: page.items.map(store.viewOf), nextCursor: page.nextCursor };
}

export async function updatePeer(node: Node, id: string, input: UpdatePeer): Promise<Peer> {
  const was = await getPeerRecord(node, id);
  const now: PeerRecord = {
    ...was,
    ...(input.name !== undefined && { name: input.name }),
    ...(input.maxPacketAmount !== undefined && { maxPacketAmount: input.maxPacketAmount }),
    ...(input.liquidityThreshold !== undefined && { liquidityThreshold: input.liquidityThreshold }),
    ...(input.routes !== undefined && { routes: input.routes }),
    ...(input.http?.incoming && { incomingTokenHashes: input.http.incoming.authTokens.map(store.tokenHash) }),
    ...(input.http?.outgoing && { http: { outgoing: { endpoint: input.http.outgoing.endpoint } }, outgoingAuthToken: input.http.outgoing.authToken }),
  };
  checkAmounts(now, now.assetScale);
  if (input.http?.outgoing) await checkEndpoint(node, input.http.outgoing.endpoint);
  const refusals = await commit(node, store.replacePeer(node, was, now));
  if (refusals.includes('peer_changed')) throw await goneOrChanged(node, id);
  if (refusals.includes('auth_token_in_use')) throw peerErrors.tokenInUse();
  forgetPeers();
  return store.viewOf(now);
}

// A peer can go only once its liquidity is withdrawn, and no two-phase withdrawal holds any of it
// (the checks commit with the deletion).
export async function deletePeer(node: Node, id: string): Promise<void> {
  const p = await getPeerRecord(node, id);
  const refusals = await commit(node, [...store.removePeer(node, p), ...holdsNothing(node, account.peer(id), 'peer_has_liquidity')]);
  if (refusals.includes('peer_has_liquidity')) {
    throw peerErrors.hasLiquidity(id);
  }
  if (refusals.length) throw await goneOrChanged(node, id);
  forgetPeers();
}

// A change made from a read that another request has since overtaken: 404 if the peer went,
// else 409, to read it again and retry.
async function goneOrChanged(node: Node, id: string): Promise<DomainError> {
  return (await store.findPeer(node, id)) ? peerErrors.changed(id) : peerErrors.notFound(id);
}

// Deposits extend the credit line from the asset's settlement account; withdrawals take it back.
export async function movePeerLiquidity(node: Node, id: string, value: string, direction: 'deposit' | 'withdrawal', idempotencyKey?: string) {
  const p = await getPeerRecord(node, id);
  const units = toLedger(BigInt(value), p.assetScale, 'amount');
  if ((await moveFunds(node, account.peer(id), p.assetId, units, direction, { type: 'peer', id }, idempotencyKey)) === 'insufficient') {
    throw ledgerErrors.insufficientLiquidity(`Peer ${id}`, value, p.assetScale);
  }
  return getPeer(node, id);
}

// The write that counts a two-phase withdrawal of the peer's liquidity held (1) or ended (-1), for
// the withdrawal's transaction.
export const countWithdrawals = (node: Node, id: string, delta: 1 | -1) => store.countWithdrawals(node, id, delta);

// What the connector asks on every packet, kept in this container for a few seconds: a peer
// changed elsewhere (another container) takes effect here within PEER_CACHE_MS; one changed
// here at once.
const PEER_CACHE_MS = 10_000;
const byToken = new Map<string, { node: Node; peer: PeerRecord; until: number }>();
const everyPeer = new Map<string, { peers: Promise<PeerRecord[]>; until: number }>(); // by tenant

function forgetPeers() {
  byToken.clear();
  everyPeer.clear();
}

// The peer an incoming auth token belongs to, if any, and the node of the tenant it peers with
// (`tenantNode` finds it from the token's claim: a token names its tenant as well as its peer).
export async function peerForToken(
  base: Node,
  token: string,
  tenantNode: (tenantId: string) => Promise<Node | undefined>,
): Promise<{ node: Node; peer: PeerRecord } | undefined> {
  const hash = store.tokenHash(token);
  const kept = byToken.get(hash);
  if (kept && kept.until > Date.now()) return kept;
  const claim = await store.findPeerByToken(base, hash);
  const node = claim && (await tenantNode(claim.tenantId));
  const peer = claim && node ? await store.findPeer(node, claim.peerId) : undefined;
  if (!node || !peer?.incomingTokenHashes.includes(hash)) return undefined;
  byToken.set(hash, { node, peer, until: Date.now() + PEER_CACHE_MS });
  return { node, peer };
}

function peers(node: Node): Promise<PeerRecord[]> {
  const kept = everyPeer.get(node.tenant.id);
  if (kept && kept.until > Date.now()) return kept.peers;
  const loading = store.allPeers(node);
  everyPeer.set(node.tenant.id, { peers: loading, until: Date.now() + PEER_CACHE_MS });
  loading.catch(() => everyPeer.delete(node.tenant.id));
  return loading;
}

// The next hop for an ILP address (the rule is ./rules.ts bestRoute), never the peer `except` (the
// one a forwarded packet came from).
export const routeTo = async (node: Node, destination: string, assetCode?: string, except?: string): Promise<PeerRecord | undefined> =>
  bestRoute(
    (await peers(node)).filter((p) => p.id !== except),
    destination,
    assetCode,
  );

// peer.liquidity_low, once, when packets from the peer took its liquidity (`taken`, ledger units)
// below its threshold. A failed check is logged, never thrown: the packets are settled already.
export async function noteLiquidityTaken(node: Node, peer: PeerRecord, taken: bigint): Promise<void> {
  if (peer.liquidityThreshold === null) return;
  try {
    const threshold = toLedger(BigInt(peer.liquidityThreshold), peer.assetScale);
    const after = await peerLiquidity(node, peer);
    if (after < threshold && after + taken >= threshold) {
      const liquidity = amountOf(fromLedger(after, peer.assetScale), { code: peer.assetCode, scale: peer.assetScale });
      await commit(node, [], [event(store.partition(node, peer.id), 'peer.liquidity_low', { ...store.viewOf(peer), liquidity })]);
    }
  } catch (error) {
    logger.warn('Peer liquidity check failed', { peerId: peer.id, error: (error as Error).message });
  }
}
