import { ANSWER_GRACE_MS } from '../ilp/link';
import { type AccountId, account, type Leg, type TransferDescription, transfer } from '../ledger';
import { commit } from '../platform/tx';
import type { Node } from '../shared/node';
import * as store from './store';

// What every packet this node sends a peer books, whether a payment's (./methods/ilp.ts) or one it
// forwards for another peer (./forward.ts): its money is reserved from where it comes (the payment's
// account, or the incoming peer's credit line) into a hold before it leaves, then posted to the
// peer with its Fulfill, or returned with its Reject, or with no answer before it expired
// (`unanswered`, listed for reconciliation with the peer).

// After a pending packet's expiry, before its fate is taken as final: longer than the process that
// sent it may still wait for its answer.
export const HOLD_GRACE_MS = ANSWER_GRACE_MS + 1_000;

// Where a packet's money comes from: an account in `assetId`, and the hold (by its owner's id) it
// waits in while the packet is out.
export interface PacketSource {
  account: AccountId;
  assetId: string;
  holdId: string;
}

// A packet's ledger legs. Same asset: source -> hold -> peer. Across assets the peer's side moves
// in its asset, against that asset's liquidity: source -> hold(src) -> liquidity(src), and
// liquidity(peer asset) -> hold(peer asset) -> peer. A return runs the reservation backwards.
export function packetLegs(
  from: PacketSource,
  k: Pick<store.PacketRecord, 'peerId' | 'peerAssetId' | 'sourceUnits' | 'peerUnits'>,
  phase: 'reserve' | 'post' | 'return',
): Leg[] {
  const s = BigInt(k.sourceUnits);
  const q = BigInt(k.peerUnits);
  const srcHold = account.hold(from.holdId, from.assetId);
  const peerHold = account.hold(from.holdId, k.peerAssetId);
  const all: Leg[] =
    from.assetId === k.peerAssetId
      ? {
          reserve: [{ debit: from.account, credit: srcHold, amount: s }],
          post: [{ debit: srcHold, credit: account.peer(k.peerId), amount: s }],
          return: [{ debit: srcHold, credit: from.account, amount: s }],
        }[phase]
      : {
          reserve: [
            { debit: from.account, credit: srcHold, amount: s },
            { debit: account.liquidity(k.peerAssetId), credit: peerHold, amount: q },
          ],
          post: [
            { debit: srcHold, credit: account.liquidity(from.assetId), amount: s },
            { debit: peerHold, credit: account.peer(k.peerId), amount: q },
          ],
          return: [
            { debit: srcHold, credit: from.account, amount: s },
            { debit: peerHold, credit: account.liquidity(k.peerAssetId), amount: q },
          ],
        }[phase];
  return all.filter((l) => l.amount > 0n);
}

// A pending packet that got no answer before it expired, booked as not paid: its money returned,
// and listed under its peer (`listed`: the assets the listing shows). Refused if its reply settled
// it meanwhile: that reply stands.
export async function bookUnanswered(
  node: Node,
  owner: store.PacketOwner,
  from: PacketSource,
  k: store.PacketRecord,
  transferId: string,
  about: TransferDescription,
  listed: { sourceAssetCode: string; sourceAssetScale: number; peerAssetCode: string; peerAssetScale: number },
) {
  return commit(
    node,
    [...(await transfer(node, transferId, about, packetLegs(from, k, 'return'))), store.settlePacket(node, owner, k, 'unanswered', undefined, listed)],
    [],
    'ilp-unanswered',
  );
}
