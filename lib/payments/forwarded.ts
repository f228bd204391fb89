import { account, type TransferDescription } from '../ledger';
import { findPeer } from '../peers';
import type { PeerRecord } from '../peers/schemas';
import { logger } from '../platform/log';
import type { Node } from '../shared/node';
import { bookUnanswered, HOLD_GRACE_MS, type PacketSource } from './packets';
import * as store from './store';

// The books of the packets this node forwards (./forward.ts): their transfers' ids, where their
// money comes from (the incoming peer's credit line, held per packet), and the sweep that books
// those a crash left pending. Apart from ./forward.ts, so that the schedule that sweeps bundles
// no sending.
export const transferId = (from: PeerRecord, id: string, phase: string) => `ilp-fwd:${from.id}:${id}:${phase}`;
export const about = (fromId: string): TransferDescription => ({ kind: 'packet', resource: { type: 'peer', id: fromId } });
// A forwarded packet's line in the reconciliation listing: the two peers' assets.
export const listedFor = (from: PeerRecord, to: PeerRecord) => ({
  sourceAssetCode: from.assetCode,
  sourceAssetScale: from.assetScale,
  peerAssetCode: to.assetCode,
  peerAssetScale: to.assetScale,
});
export const sourceOf = (fromId: string, assetId: string, id: string): PacketSource => ({
  account: account.peer(fromId),
  assetId,
  holdId: `fwd.${fromId}.${id}`,
});

// Forwarded packets a crash left pending (their money held, no one waiting for their answer),
// once they expired HOLD_GRACE_MS ago, booked as not paid and listed for reconciliation with the
// peer they went to. Answers how many it booked.
export async function sweepForwards(node: Node): Promise<number> {
  const pending = await store.listPendingForwards(node, new Date(Date.now() - HOLD_GRACE_MS).toISOString());
  const peers = new Map<string, PeerRecord | undefined>();
  const peer = async (id: string) => {
    if (!peers.has(id)) peers.set(id, await findPeer(node, id));
    return peers.get(id);
  };
  let booked = 0;
  for (const k of pending) {
    const [from, to] = [await peer(k.forwardedFrom), await peer(k.peerId)];
    // A peer deleted since cannot be: its credit line held this packet's money (it is not empty).
    if (!from || !to) continue;
    const refusals = await bookUnanswered(
      node,
      { forwardedFrom: from.id },
      sourceOf(from.id, from.assetId, k.id),
      k,
      transferId(from, k.id, 'return'),
      about(from.id),
      listedFor(from, to),
    );
    if (!refusals.length) booked++;
  }
  if (booked) logger.warn('Forwarded packets got no answer before they expired: booked as not paid; reconcile them with the peer', { booked });
  return booked;
}
