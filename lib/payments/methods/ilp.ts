import { closeConnection, type PaymentProgress, type Quote as PayQuote, pay } from '@interledger/pay';
import { noteLiquidityTaken } from '../../assets';
import { type PacketOut, PeerPlugin, type SendingHooks } from '../../ilp/plugin';
import { connect, payQuote } from '../../ilp/quote';
import type { RemoteReceiver } from '../../ilp/receiver';
import { spspReceiver } from '../../ilp/spsp-pay';
import { account, balanceOf, insufficient, TOO_LARGE, type TransferDescription, transfer } from '../../ledger';
import { readReceiver } from '../../open-payments/client';
import { findPeer } from '../../peers';
import type { PeerRecord } from '../../peers/schemas';
import { message } from '../../platform/events';
import { logger } from '../../platform/log';
import { commit } from '../../platform/tx';
import { feeOf } from '../../quotes';
import type { IlpFields } from '../../quotes/method';
import { resolveRate } from '../../rates';
import { amountOf, toLedger } from '../../shared/amounts';
import { DomainError } from '../../shared/errors';
import type { Node } from '../../shared/node';
import { finishPayment } from '..';
import { bookUnanswered, HOLD_GRACE_MS, type PacketSource, packetLegs } from '../packets';
import type { PaymentRecord } from '../schemas';
import * as store from '../store';
import type { Sending, SendOutcome } from './method';

// The Interledger payment method: to an incoming payment on another node, read over Open Payments
// (which yields its STREAM credentials), through the peer that routes to it. Quoting probes the
// route (./ilp-quote.ts) and keeps what it found (lib/quotes/method.ts IlpFields); sending is STREAM
// over that peer, with @interledger/pay. One attempt at a time holds the payment's lease.
//
// Each paying packet is recorded and its money reserved (payment -> hold) before it leaves; the
// reply settles it in one transaction: a Fulfill posts the hold to the peer (through both assets'
// liquidity when the peer's asset is another), a Reject returns it. So the ledger always knows
// what left, and an attempt that dies midway loses nothing: the next one starts from the packets
// recorded. A packet left `pending` (its attempt died, or the peer never answered) is settled once
// it has expired, by Interledger's rule: the sender owes a packet only when its fulfillment
// arrives before expiry, so it is booked as rejected (`unanswered`: its money returns to the
// payment) and listed for reconciliation with the peer (GET /peers/{id}/reconciliation). If the
// peer did credit it (its fulfillment was lost), the peer bears it; the receiver's incomingAmount
// bounds what sending again can add. What still has to be delivered is the quote's receive amount
// less what was delivered, and never more than the receiver still asks for (read afresh).
//
// Ends: `completed` when the receiver has the amount (or is completed), `failed` with a reason
// when it cannot be sent (funds left in the payment's account to withdraw), or a retry (thrown)
// when the peer is unreachable or an outcome is unknown; a long payment continues in a new message.

const LEASE_MS = 60_000; // longer than the worker may run (serverless.yml timeout)
// Both from the attempt's start, within the worker's 50 s (serverless.yml): no paying packet
// leaves after ATTEMPT_MS, and the last one's answer (a packet lives at most 10 s, and its answer
// is awaited ANSWER_GRACE_MS, 5 s, past its expiry) is awaited until OVERSTAY_MS, leaving time to
// settle and finish.
const ATTEMPT_MS = 25_000;
const OVERSTAY_MS = 41_000;

// An injected crash: leave everything as a process that died would.
class Crashed extends Error {}

const sourceAsset = (p: PaymentRecord) => ({ code: p.debitAmount.assetCode, scale: p.debitAmount.assetScale });

function ilpFieldsOf(p: PaymentRecord): IlpFields {
  if (p.method !== 'ilp') throw new Error(`Payment ${p.id} is not sent over Interledger`);
  return p.ilp;
}

async function sendRemote(node: Node, p: PaymentRecord, holder: string): Promise<SendOutcome> {
  if (!(await store.takeLease(node, p.id, holder, Date.now() + LEASE_MS))) {
    if ((await store.findPayment(node, p.id))?.state !== 'sending') return 'skipped';
    throw new Error(`Payment ${p.id} is being sent by another attempt until its lease ends`);
  }
  try {
    return await attempt(node, p, holder, Date.now());
  } catch (e) {
    // A refusal that no retry changes (no such receiver, no rate for the peer): fail now, with it.
    if (e instanceof DomainError && e.status === 422) return finish(node, p, 'failed', totalsOf(await store.listPackets(node, p.id)), e.code);
    if (!(e instanceof Crashed)) await commit(node, [store.releaseLease(node, p.id, holder)]).catch(() => undefined);
    throw e;
  }
}

async function attempt(node: Node, p: PaymentRecord, holder: string, startedAt: number): Promise<SendOutcome> {
  const fields = ilpFieldsOf(p);
  const before = totalsOf(await resolveLeftovers(node, p));
  const receive = BigInt(p.receiveAmount.value);
  if (before.delivered >= receive) return finish(node, p, 'completed', before);

  const receiver = await receiverOf(node, p);
  if (receiver.state !== 'open') {
    // Packets that got no answer may be what completed it (the receiver bears those).
    if (receiver.state === 'completed' && before.unanswered) return finish(node, p, 'completed', before);
    return finish(node, p, 'failed', before, `receiver_${receiver.state}`);
  }
  let toDeliver = receive - before.delivered;
  if (receiver.incoming !== null) toDeliver = min(toDeliver, receiver.incoming - receiver.received);
  if (toDeliver <= 0n) return finish(node, p, 'completed', before);
  const budget = BigInt(p.debitAmount.value) - BigInt(feeOf(p).value) - before.sent; // the fee stays, for completion
  if (budget <= 0n) return finish(node, p, 'failed', before, 'funds_exhausted');
  const peer = await findPeer(node, fields.peerId);
  if (!peer) return finish(node, p, 'failed', before, 'peer_not_found');

  const src = sourceAsset(p);
  const { rate } = await resolveRate(node, { sourceAssetCode: src.code, destinationAssetCode: peer.assetCode, peerId: peer.id }); // 1 for the same asset
  const plugin = new PeerPlugin({
    node,
    peer,
    source: src,
    rate,
    sharedSecret: receiver.sharedSecret,
    hooks: hooksFor(node, p, peer),
    deadline: startedAt + ATTEMPT_MS,
  });
  const result = await payWithin(plugin, receiver, payQuote(fields, budget, toDeliver), startedAt + OVERSTAY_MS, fields.spsp === true);
  if (plugin.failure?.kind === 'crashed') throw new Crashed(plugin.failure.reason);

  const packets = await store.listPackets(node, p.id);
  const after = totalsOf(packets);
  if (packets.some((k) => k.state === 'pending')) throw new Error(`Payment ${p.id}: a packet's fate is not known yet; the next attempt settles it`);
  if (!result.error && !plugin.failure) return finish(node, p, 'completed', after);
  const why = plugin.failure
    ? `${plugin.failure.kind}: ${plugin.failure.reason}`
    : `${result.error}${plugin.lastReject ? ` (last reject ${plugin.lastReject.code} ${plugin.lastReject.message})` : ''}`;
  logger.warn('Remote payment attempt ended short', {
    paymentId: p.id,
    peerId: peer.id,
    sent: after.sent.toString(),
    delivered: after.delivered.toString(),
    why,
  });

  // Out of time, or too slow for pay, with packets still to send (`stalled`); or the receiver took
  // less than a packet (`full`); or pay saw no Fulfill for 10 s (its idle timeout) while no one on
  // the way refused a packet but for running out of time (R00): go on in a fresh message, with
  // what the receiver still asks for.
  const slow = result.error === 'stalled' || (result.error === 'IdleTimeout' && (plugin.lastReject === undefined || plugin.lastReject.code === 'R00'));
  const goOn = plugin.failure?.kind === 'stopped' || plugin.failure?.kind === 'full' || (!plugin.failure && slow);
  if (goOn) {
    if (after.sent === before.sent) throw new Error(`Payment ${p.id}: ${why}`);
    await commit(node, [store.releaseLease(node, p.id, holder)], [message(store.partition(node, p.id), node.queues.payments, { paymentId: p.id })]);
    return 'continued';
  }
  switch (plugin.failure?.kind) {
    case 'unreachable':
      throw new Error(`Payment ${p.id}: ${plugin.failure.reason}; retrying later`);
    case 'refused':
      return finish(node, p, 'failed', after, 'peer_refused');
    case 'exhausted':
      return finish(node, p, 'failed', after, 'funds_exhausted');
    case 'liquidity':
      return finish(node, p, 'failed', after, 'insufficient_liquidity');
    case 'too_large':
      return finish(node, p, 'failed', after, 'balance_too_large');
  }
  switch (result.error) {
    case 'exhausted':
      return finish(node, p, 'failed', after, 'funds_exhausted');
    case 'ClosedByReceiver': {
      // Completed or expired by something else before this payment delivered its amount.
      const { state } = await receiverOf(node, p);
      return finish(node, p, 'failed', after, state === 'open' ? 'receiver_closed' : `receiver_${state}`);
    }
    case 'InsufficientExchangeRate':
      return finish(node, p, 'failed', after, 'rate_below_minimum');
    case 'IdleTimeout':
      return finish(node, p, 'failed', after, plugin.lastReject?.code === 'T04' ? 'insufficient_liquidity' : 'idle_timeout');
    default:
      return finish(node, p, 'failed', after, plugin.lastReject ? `rejected_${plugin.lastReject.code}` : 'send_failed');
  }
}

// The receiver as it is now: the incoming payment read again, or a payment pointer's new connection
// (in the asset its quote found).
const receiverOf = (node: Node, p: PaymentRecord): Promise<RemoteReceiver> =>
  ilpFieldsOf(p).spsp ? spspReceiver(node, p.receiver, { code: p.receiveAmount.assetCode, scale: p.receiveAmount.assetScale }) : readReceiver(node, p.receiver);

// pay, for at most what the quote allows. pay waits forever when its source budget is spent with
// the delivery still short; that is an end here ('exhausted'), as is an attempt that overstays.
// However it ends, the plugin stops reserving first, and every packet it reserved is on record
// before the attempt reads them: pay may end with packets still in the plugin (those it stopped
// waiting for at their expiry), or still be sending when the attempt ends before it. `close`: a
// connection that delivered all it had to is closed (the SPSP receiver completes its intent then).
function payWithin(plugin: PeerPlugin, receiver: RemoteReceiver, quote: PayQuote, until: number, close: boolean): Promise<{ error?: string }> {
  return new Promise((resolve) => {
    const end = (error?: string) => void plugin.stop(`The attempt ended${error ? ` (${error})` : ''}`).then(() => resolve(error ? { error } : {}));
    const overstay = setTimeout(() => end('stalled'), Math.max(0, until - Date.now()));
    const progressHandler = (at: PaymentProgress) => {
      if (at.sourceAmountInFlight === 0n && at.amountSent >= quote.maxSourceAmount && at.amountDelivered < quote.minDeliveryAmount) end('exhausted');
    };
    connect(plugin, receiver)
      .then(async (destination) => {
        const paid = await pay({ plugin, destination, quote, progressHandler });
        if (close && !paid.error) await closeConnection(plugin, destination).catch(() => undefined); // the receiver's affair
        return paid;
      })
      .then(
        // pay gave up on a packet this node was still sending (at its expiry): this node was slow.
        (r) => end(r.error && plugin.sending > 0 ? 'stalled' : r.error),
        (e) => end(String(e)),
      )
      .finally(() => clearTimeout(overstay));
  });
}

// The payment's account is where its packets' money comes from (../packets.ts).
const sourceOf = (p: PaymentRecord): PacketSource => ({ account: account.payment(p.id), assetId: p.sourceAssetId, holdId: p.id });
const legs = (p: PaymentRecord, k: Parameters<typeof packetLegs>[1], phase: Parameters<typeof packetLegs>[2]) => packetLegs(sourceOf(p), k, phase);

const transferId = (p: PaymentRecord, packetId: string, phase: string) => `ilp-out:${p.id}:${packetId}:${phase}`;
const packetOf = (p: PaymentRecord): TransferDescription => ({ kind: 'packet', resource: { type: 'payment', id: p.id } });

const RESERVE_ATTEMPTS = 4;

function hooksFor(node: Node, p: PaymentRecord, peer: PeerRecord): SendingHooks {
  const src = sourceAsset(p);
  return {
    async reserve(packet: PacketOut) {
      const record: store.PacketRecord = {
        id: packet.id,
        state: 'pending',
        peerId: peer.id,
        peerAssetId: peer.assetId,
        source: packet.source.toString(),
        sourceUnits: toLedger(packet.source, src.scale).toString(),
        peerUnits: toLedger(packet.peerAmount, peer.assetScale).toString(),
        minDelivery: packet.minDelivery.toString(),
        expiresAt: packet.expiresAt.toISOString(),
        createdAt: new Date().toISOString(),
      };
      const liquidity = account.liquidity(peer.assetId);
      for (let attempt = 1; ; attempt++) {
        const refusals = await commit(
          node,
          [
            ...(await transfer(node, transferId(p, packet.id, 'reserve'), packetOf(p), legs(p, record, 'reserve'), { read: attempt > 1 })),
            store.putPacket(node, { paymentId: p.id }, record),
          ],
          [],
          'ilp-reserve',
        );
        if (!refusals.length) {
          if (p.sourceAssetId !== peer.assetId) await noteLiquidityTaken(node, peer.assetId, BigInt(record.peerUnits));
          return undefined;
        }
        if (refusals.includes(insufficient(account.payment(p.id)))) return 'exhausted';
        if (refusals.includes(insufficient(liquidity))) {
          // The shard picked blind, or those read, held too little meanwhile: read (again) while the
          // asset as a whole covers it.
          if (attempt === 1 || (attempt < RESERVE_ATTEMPTS && (await balanceOf(node, liquidity)) >= BigInt(record.peerUnits))) continue;
          return 'liquidity';
        }
        if (refusals.includes(TOO_LARGE)) return 'too_large';
        throw new Error(`Payment ${p.id}: packet ${packet.id} was reserved before`);
      }
    },
    async settle(packet: PacketOut, delivered: bigint | undefined) {
      const k = {
        peerId: peer.id,
        peerAssetId: peer.assetId,
        sourceUnits: toLedger(packet.source, src.scale).toString(),
        peerUnits: toLedger(packet.peerAmount, peer.assetScale).toString(),
      };
      const phase = delivered === undefined ? 'return' : 'post';
      const refusals = await commit(
        node,
        [
          ...(await transfer(node, transferId(p, packet.id, phase), packetOf(p), legs(p, k, phase))),
          store.settlePacket(
            node,
            { paymentId: p.id },
            { id: packet.id, peerId: peer.id, expiresAt: packet.expiresAt.toISOString() },
            phase === 'return' ? 'rejected' : 'fulfilled',
            delivered,
          ),
        ],
        [],
        'ilp-settle',
      );
      if (refusals.includes(TOO_LARGE)) throw new Error(`Payment ${p.id}: settling packet ${packet.id} would take a balance past 38 digits`);
      if (refusals.length) throw new Error(`Payment ${p.id}: packet ${packet.id} was settled before`);
    },
  };
}

// Packets an earlier attempt left pending: once they expired (waiting for that if need be; they
// live at most seconds), booked as not paid, their money returned. Answers every packet of the payment.
async function resolveLeftovers(node: Node, p: PaymentRecord): Promise<store.PacketRecord[]> {
  const packets = await store.listPackets(node, p.id);
  const pending = packets.filter((k) => k.state === 'pending');
  if (!pending.length) return packets;
  const settledBy = Math.max(...pending.map((k) => Date.parse(k.expiresAt))) + HOLD_GRACE_MS;
  if (settledBy > Date.now()) await new Promise((r) => setTimeout(r, settledBy - Date.now()));
  const peers = new Map<string, PeerRecord | undefined>();
  for (const k of pending) {
    if (!peers.has(k.peerId)) peers.set(k.peerId, await findPeer(node, k.peerId));
    const peer = peers.get(k.peerId);

    const listed = {
      sourceAssetCode: p.debitAmount.assetCode,
      sourceAssetScale: p.debitAmount.assetScale,
      peerAssetCode: peer?.assetCode ?? '',
      peerAssetScale: peer?.assetScale ?? 0,
    };
    // Settled by its reply meanwhile (a late attempt's): that reply stands.
    await bookUnanswered(node, { paymentId: p.id }, sourceOf(p), k, transferId(p, k.id, 'return'), packetOf(p), listed);
  }
  logger.warn('Packets got no answer before they expired: booked as not paid; reconcile them with the peer', {
    paymentId: p.id,
    peerId: pending[0].peerId,
    packets: pending.map((k) => k.id),
  });
  return store.listPackets(node, p.id);
}

function totalsOf(packets: store.PacketRecord[]) {
  let sent = 0n;
  let delivered = 0n;
  let unanswered = 0;
  for (const k of packets) {
    if (k.state === 'fulfilled' || k.state === 'unresolved') sent += BigInt(k.source);
    if (k.state === 'fulfilled') delivered += BigInt(k.delivered ?? k.minDelivery);
    // Booked as sent before unanswered packets were booked as not paid (see store.ts).
    if (k.state === 'unresolved') delivered += BigInt(k.minDelivery);
    if (k.state === 'unanswered' || k.state === 'unresolved') unanswered++;
  }
  return { sent, delivered, unanswered };
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);

const finish = (node: Node, p: PaymentRecord, state: 'completed' | 'failed', totals: { sent: bigint; delivered: bigint }, reason?: string) =>
  finishPayment(node, p, state, { sentAmount: amountOf(totals.sent, sourceAsset(p)), delivered: totals.delivered, reason });

// The payment's last message failed: settle what an attempt left and fail it, unless another
// attempt holds it (that one decides).
async function giveUpRemote(node: Node, p: PaymentRecord, holder: string): Promise<void> {
  if (!(await store.takeLease(node, p.id, holder, Date.now() + LEASE_MS))) return;
  await finish(node, p, 'failed', totalsOf(await resolveLeftovers(node, p)), 'delivery_failed');
}

export const ilp: Sending = { send: sendRemote, giveUp: giveUpRemote };
