import { createHash } from 'node:crypto';
import { type IlpPrepare, type IlpReply, isFulfill } from 'ilp-packet';
import { noteLiquidityTaken as noteAssetLiquidityTaken } from '../assets';
import { sendToPeer } from '../ilp/link';
import { amountTooLarge, reject } from '../ilp/packets';
import { account, blindThenRead, insufficient, isInsufficient, TOO_LARGE, TRANSFER_EXISTS, transfer } from '../ledger';
import { noteLiquidityTaken as notePeerLiquidityTaken, routeTo } from '../peers';
import type { PeerRecord } from '../peers/schemas';
import { crashPoint } from '../platform/faults';
import { logger } from '../platform/log';
import { commit } from '../platform/tx';
import { resolveRate } from '../rates';
import { receiveFor, toLedger } from '../shared/amounts';
import type { Node } from '../shared/node';
import { about, listedFor, sourceOf, sweepForwards, transferId } from './forwarded';
import { bookUnanswered, packetLegs } from './packets';
import * as store from './store';

// Forwarding, as Rafiki's connector does: a packet from a peer (`from`) for an address this node
// does not serve goes on to the peer of the same tenant with the longest matching prefix among its
// static address and its routes (among equally long ones, one in from's asset), never back to
// `from` (F02 when there is none). It leaves in the next peer's asset (at the rate this node gives
// that peer, rounded down), no larger than that peer's maxPacketAmount (F08), expiring
// FORWARD_MARGIN_MS before the packet did (R02 when too little time is left). Its money moves as a
// payment's packet's does (./packets.ts), with the incoming peer's credit line in the payment's
// place: reserved (from's line debited, and across assets the next peer's asset's liquidity too)
// and recorded before it leaves, then posted with a Fulfill whose preimage matches (the next
// peer's line credited; from's asset's liquidity takes what was debited), or returned with a
// Reject, which goes back as it came. A packet whose answer is lost (the next peer failed midway,
// or this node crashed) is booked as not paid and listed for reconciliation with the next peer
// (GET /peers/{id}/reconciliation); one a crash left pending is found once it expired by
// sweepForwards (./forwarded.ts), which runs here and on the minute's schedule. A tenant's peers
// route only its packets: the peers and the books are the tenant's.

// Taken off the packet's expiry at each hop, for the answer's way back (Rafiki's is 1 s too).
const FORWARD_MARGIN_MS = 1_000;
// The least time the packet must still have when it leaves: a node of this service credits a
// packet only with 1 s to go (lib/ilp/receive.ts), and a hop further needs its own margin.
const MIN_LEFT_MS = 1_000;

export async function forwardPacket(node: Node, from: PeerRecord, prepare: IlpPrepare): Promise<IlpReply> {
  await sweepNowAndThen(node);
  const to = await routeTo(node, prepare.destination, from.assetCode, from.id); // among equals, no conversion
  if (!to) return reject(node, 'F02', `No route to ${prepare.destination} from this node (${node.ilpAddress})`);
  const expiresAt = new Date(prepare.expiresAt.getTime() - FORWARD_MARGIN_MS);
  if (expiresAt.getTime() - Date.now() < MIN_LEFT_MS)
    return reject(node, 'R02', `Too little time left to forward the packet (it expires at ${prepare.expiresAt.toISOString()})`);

  const amount = BigInt(prepare.amount);
  let out = amount;
  if (to.assetId !== from.assetId) {
    try {
      const { rate } = await resolveRate(node, { sourceAssetCode: from.assetCode, destinationAssetCode: to.assetCode, peerId: to.id });
      out = receiveFor(amount, rate, from.assetScale, to.assetScale);
    } catch (e) {
      return reject(node, 'F07', `Cannot convert ${from.assetCode} to ${to.assetCode}: ${(e as Error).message}`);
    }
  }
  // In the incoming packet's units, as the sender sizes its next packet by them.
  if (to.maxPacketAmount !== null && out > BigInt(to.maxPacketAmount)) return amountTooLarge(node, amount, (amount * BigInt(to.maxPacketAmount)) / out);
  const outgoing: IlpPrepare = { ...prepare, amount: out.toString(), expiresAt };
  if (amount === 0n) return forwardFree(node, to, outgoing);

  const id = prepare.executionCondition.toString('hex');
  const record: store.PacketRecord = {
    id,
    state: 'pending',
    peerId: to.id,
    peerAssetId: to.assetId,
    source: amount.toString(),
    sourceUnits: toLedger(amount, from.assetScale).toString(),
    peerUnits: toLedger(out, to.assetScale).toString(),
    minDelivery: '0',
    expiresAt: expiresAt.toISOString(),
    createdAt: new Date().toISOString(),
  };
  const owner = { forwardedFrom: from.id };
  const source = sourceOf(from.id, from.assetId, id);
  const refusals = await blindThenRead(
    async (read) =>
      commit(
        node,
        [
          ...(await transfer(node, transferId(from, id, 'reserve'), about(from.id), packetLegs(source, record, 'reserve'), { read })),
          store.putPacket(node, owner, record),
        ],
        [],
        'ilp-forward',
      ),
    (r) => r.some(isInsufficient),
  );
  if (refusals.includes(TRANSFER_EXISTS) || refusals.includes('packet_exists')) return repeated(node, from, prepare);
  if (refusals.includes(insufficient(account.peer(from.id)))) return reject(node, 'T04', `Peer ${from.id} has too little liquidity left for this packet`);
  if (refusals.some(isInsufficient)) return reject(node, 'T04', `Too little ${to.assetCode} liquidity to forward this packet`);
  if (refusals.includes(TOO_LARGE)) return reject(node, 'F99', 'Forwarding this packet would take a balance past 38 digits');
  if (refusals.length) throw new Error(`Forwarded packet ${id}: refused for ${refusals.join(', ')}`);
  await Promise.all([
    notePeerLiquidityTaken(node, from, BigInt(record.sourceUnits)),
    to.assetId !== from.assetId ? noteAssetLiquidityTaken(node, to.assetId, BigInt(record.peerUnits)) : undefined,
  ]);

  crashPoint('ilp-forward:after-reserve'); // a test's crash: the packet stays pending, for the sweep
  const delivery = await sendToPeer(node, to, outgoing);
  if (delivery.kind === 'unknown') {
    // No one waits for its answer any longer: booked as not paid now, for reconciliation.
    await bookUnanswered(node, owner, source, record, transferId(from, id, 'return'), about(from.id), listedFor(from, to));
    logger.warn('A forwarded packet got no answer: booked as not paid; reconcile it with the peer', { peerId: to.id, from: from.id, packet: id });
    return reject(node, 'T00', `Peer ${to.id} did not answer the packet: ${delivery.reason}`);
  }
  let reply: IlpReply =
    delivery.kind === 'reply' ? delivery.reply : reject(node, delivery.refused ? 'T00' : 'T01', `Peer ${to.id} cannot be reached: ${delivery.reason}`);
  if (isFulfill(reply) && !createHash('sha256').update(reply.fulfillment).digest().equals(prepare.executionCondition)) {
    reply = reject(node, 'F05', `Peer ${to.id} fulfilled the packet with a wrong preimage`);
  }
  const phase = isFulfill(reply) ? 'post' : 'return';
  const settled = await commit(
    node,
    [
      ...(await transfer(node, transferId(from, id, phase), about(from.id), packetLegs(source, record, phase))),
      store.settlePacket(
        node,
        owner,
        record,
        phase === 'post' ? 'fulfilled' : 'rejected',
        undefined,
        undefined,
        isFulfill(reply) ? reply.fulfillment.toString('hex') : undefined,
      ),
    ],
    [],
    'ilp-forward-settle',
  );
  // Booked as unanswered meanwhile (its answer came later than a sweep waits): not paid, here too.
  if (settled.length) return reject(node, 'R00', `The packet's answer came after it was booked as not paid (${settled.join(', ')})`);
  return reply;
}

// A packet seen before (the same condition from the same peer): its Fulfill again once it was
// fulfilled, else a reject that the sender may retry while the packet is in time.
async function repeated(node: Node, from: PeerRecord, prepare: IlpPrepare): Promise<IlpReply> {
  const was = await store.findForwarded(node, from.id, prepare.executionCondition.toString('hex'));
  if (was?.state === 'fulfilled' && was.fulfillment) return { fulfillment: Buffer.from(was.fulfillment, 'hex'), data: Buffer.alloc(0) };
  return reject(node, 'T00', `This packet was forwarded before and is ${was?.state ?? 'settling'}`);
}

// A packet of nothing (a STREAM probe's or close's) moves no money: it goes on, its answer comes back.
async function forwardFree(node: Node, to: PeerRecord, outgoing: IlpPrepare): Promise<IlpReply> {
  const delivery = await sendToPeer(node, to, outgoing);
  return delivery.kind === 'reply' ? delivery.reply : reject(node, 'T01', `Peer ${to.id} did not answer: ${delivery.reason}`);
}

// The connector sweeps each tenant's pending forwards at most every SWEEP_EVERY_MS per container, as
// it forwards: a node that restarts after a crash books what it left as packets flow again.
const SWEEP_EVERY_MS = 5_000;
const nextSweep = new Map<string, number>();
async function sweepNowAndThen(node: Node): Promise<void> {
  if ((nextSweep.get(node.tenant.id) ?? 0) > Date.now()) return;
  nextSweep.set(node.tenant.id, Date.now() + SWEEP_EVERY_MS);
  await sweepForwards(node).catch((e) => logger.warn('Sweeping pending forwarded packets failed', { error: (e as Error).message }));
}
