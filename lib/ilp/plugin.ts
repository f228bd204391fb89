import { createHash } from 'node:crypto';
import { deserializeIlpPrepare, type IlpPrepare, type IlpReply, isFulfill, serializeIlpReply } from 'ilp-packet';
import type { PeerRecord } from '../peers/schemas';
import { crashPoint } from '../platform/faults';
import { receiveFor } from '../shared/amounts';
import type { Node } from '../shared/node';
import { ANSWER_GRACE_MS, type Delivery, sendToPeer } from './link';
import { amountTooLarge, reject } from './packets';
import { receiveRoom, streamAmount } from './stream';

// The link @interledger/pay sends through: this node's own connector hop towards one peer. Each
// Prepare comes in the payment's asset; it leaves in the peer's, converted at the peer's rate
// (rounded down), no larger than the peer's maxPacketAmount (F08 here, before the round trip),
// with an expiry of at most MAX_HOLD_MS. When sending a funded payment, `hooks` reserve each
// paying packet's money before it leaves and settle it with the reply (see lib/payments/methods/ilp.ts);
// quotes probe without them, moving nothing.
//
// A link failure stops the payment at once rather than letting pay retry it for ten seconds:
// the plugin answers F02 (pay's fatal code) and keeps why in `failure`, for the caller to decide
// between retrying later and failing. A packet whose fate is unknown (no answer) stops it too, and
// is left reserved: it may have been paid.
//
// What pay is told of a reject (forPay). pay 0.4.0-alpha.9, the newest on npm's registry (Rafiki
// builds its alpha.12 from its own tree), reads a receiver's answer only from F99 and T-codes, and
// ends the payment on any other F-code but F08 as the path's failure (ConnectorError). Receivers
// built on @interledger/stream-receiver 0.3.3-alpha.4, Rafiki's, answer the probe's unfulfillable
// packets F05 and packets under the sender's minimum F04, where alpha.3 answered F99. So a reject
// whose data is a STREAM reply under the connection's secret, which only the receiver can write,
// reaches pay as F99 whatever its code, and pay reads from it what the receiver got, as it does
// from alpha.3's; a reject without one is the path's, and reaches pay as it came. R00 (the packet
// ran out of time on the way; pay would end the payment for it) reaches pay as T00, since the
// next packet may be in time.
const MAX_HOLD_MS = 10_000;
// Paying packets of one payment in flight at once. pay would send up to 20, but each one's ledger
// writes go one by one here (inTurn), and the receiver credits one intent one packet at a time, so
// packets that arrive together retry there. Measured on a loaded 2-core machine (8 payments at
// once, 815 packets): 4 in flight took as long as 1 or 2, while the receiver's credits took up to
// 14 tries and 2.4 to 10 s (p99 1.2 to 9 s); 2 keep a round trip's overlap with at most 2 tries.
const IN_FLIGHT = 2;
// The least time to expiry a paying packet must still have when its money is reserved: the
// receiver's margin (it credits a packet only with 1 s to go, see ./receive.ts) and a round trip.
const MIN_HOLD_MS = 2_000;

export interface PacketOut {
  id: string; // the execution condition, hex: unique per packet
  source: bigint; // in the payment's asset
  peerAmount: bigint; // in the peer's asset
  minDelivery: bigint; // what the receiver must get for it (in the receiver's asset)
  expiresAt: Date; // as sent to the peer
}

export interface SendingHooks {
  // Undefined when reserved; else why not: the payment's own funds, or this node's liquidity in
  // the peer's asset, do not cover the packet, or a balance would pass what the ledger holds.
  reserve(packet: PacketOut): Promise<'exhausted' | 'liquidity' | 'too_large' | undefined>;
  settle(packet: PacketOut, delivered: bigint | undefined): Promise<void>; // undefined: rejected
}

type FailureKind = 'refused' | 'unreachable' | 'unknown' | 'stopped' | 'exhausted' | 'liquidity' | 'too_large' | 'crashed' | 'full';
export interface Failure {
  kind: FailureKind;
  reason: string;
}

interface PluginOptions {
  node: Node;
  peer: PeerRecord;
  source: { code: string; scale: number };
  rate: number; // from the source asset to the peer's (1 for the same asset)
  sharedSecret?: Buffer; // the receiver's STREAM secret: to read what each packet delivered, and the receiver's answers
  hooks?: SendingHooks;
  deadline?: number; // epoch ms after which no paying packet leaves
}

export class PeerPlugin {
  failure?: Failure;
  lastReject?: { code: string; message: string }; // the last reject from the way on
  private serial: Promise<unknown> = Promise.resolve();
  private inFlight = 0;
  // Packets pay handed over whose answer has not gone back yet: pay stops waiting for one at its
  // expiry, so it can end while this is not 0 (it ended because this node was slow, not the way).
  sending = 0;
  private stopped?: string;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly opts: PluginOptions) {}

  // pay sends packets concurrently; their ledger writes touch the same accounts, so they go one by one.
  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const run = this.serial.then(work, work);
    this.serial = run.catch(() => undefined);
    return run;
  }

  // Stops this attempt's sending: no packet is reserved from now on (each one still waiting is
  // refused, leaving `failure` as it is), and once the ledger writes under way are done, every
  // reservation is on record.
  async stop(reason: string): Promise<void> {
    this.stopped = reason;
    await this.serial;
  }

  private async takeSlot(): Promise<void> {
    if (this.inFlight < IN_FLIGHT) {
      this.inFlight++;
      return;
    }
    await new Promise<void>((go) => this.waiting.push(go)); // the slot passes straight on
  }

  private releaseSlot() {
    const next = this.waiting.shift();
    if (next) next();
    else this.inFlight--;
  }

  private fail(kind: FailureKind, reason: string, code = 'F02'): Buffer {
    this.failure ??= { kind, reason };
    return serializeIlpReply(reject(this.opts.node, code, reason));
  }

  // The peer cannot have taken the packet: it refused this node, or could not be reached.
  private notSent(delivery: Extract<Delivery, { kind: 'not_sent' }>): Buffer {
    return this.fail(delivery.refused ? 'refused' : 'unreachable', delivery.reason);
  }

  async sendData(data: Buffer): Promise<Buffer> {
    this.sending++;
    try {
      return await this.answer(data);
    } finally {
      this.sending--;
    }
  }

  private async answer(data: Buffer): Promise<Buffer> {
    const { peer, hooks } = this.opts;
    const prepare = deserializeIlpPrepare(data);
    const source = BigInt(prepare.amount);
    const peerAmount =
      this.opts.source.code === peer.assetCode && this.opts.source.scale === peer.assetScale
        ? source
        : receiveFor(source, this.opts.rate, this.opts.source.scale, peer.assetScale);
    if (peer.maxPacketAmount !== null && peerAmount > BigInt(peer.maxPacketAmount))
      return serializeIlpReply(amountTooLarge(this.opts.node, peerAmount, BigInt(peer.maxPacketAmount)));
    if (this.failure) return this.fail(this.failure.kind, this.failure.reason);
    // pay waits for the answer until its own expiry: the packet leaves with one early enough that
    // this node's wait for the answer (until its expiry and ANSWER_GRACE_MS) ends before.
    const leaving = () => ({
      ...prepare,
      amount: peerAmount.toString(),
      expiresAt: new Date(Math.min(prepare.expiresAt.getTime() - ANSWER_GRACE_MS - 1000, Date.now() + MAX_HOLD_MS)),
    });
    if (!hooks || source === 0n) return this.forward(leaving());
    await this.takeSlot();
    try {
      return await this.sendPaying(prepare, source, peerAmount, leaving(), hooks);
    } finally {
      this.releaseSlot();
    }
  }

  private async sendPaying(prepare: IlpPrepare, source: bigint, peerAmount: bigint, outgoing: IlpPrepare, hooks: SendingHooks): Promise<Buffer> {
    const { peer } = this.opts;
    const { expiresAt } = outgoing;
    if (this.failure) return this.fail(this.failure.kind, this.failure.reason);

    if (this.opts.deadline !== undefined && Date.now() > this.opts.deadline) return this.fail('stopped', 'This attempt ran out of time; the next one goes on');
    // pay stops waiting for a packet at its expiry (and ends the payment, as for any R00): one that
    // waited that long for its turn (for a slot, then at the ledger: checked in that turn, the last
    // wait before money moves) must not move money the attempt may no longer count. It is refused
    // as temporary before then, which pay sends again.
    const tooLate = () => expiresAt.getTime() - Date.now() < MIN_HOLD_MS;
    const packet: PacketOut = {
      id: prepare.executionCondition.toString('hex'),
      source,
      peerAmount,
      minDelivery: (this.opts.sharedSecret && (await streamAmount(this.opts.sharedSecret, prepare.data))) ?? 0n,
      expiresAt,
    };
    try {
      const refused = await this.inTurn(() =>
        this.stopped !== undefined ? Promise.resolve('stopped' as const) : tooLate() ? Promise.resolve('late' as const) : hooks.reserve(packet),
      );
      if (refused === 'stopped') return serializeIlpReply(reject(this.opts.node, 'F02', this.stopped!));
      if (refused === 'late') return serializeIlpReply(reject(this.opts.node, 'T00', 'The packet waited too long for its turn at the sender; send it again'));
      if (refused === 'exhausted') return this.fail(refused, "The payment's funds do not cover this packet");
      if (refused === 'liquidity') return this.fail(refused, `Too little ${peer.assetCode} liquidity to send this packet to peer ${peer.id}`);
      if (refused === 'too_large') return this.fail(refused, 'Sending this packet would take a balance past the 38 digits the ledger holds');
    } catch (e) {
      return this.fail('stopped', `Reserving the packet failed: ${(e as Error).message}`);
    }

    const delivery = await sendToPeer(this.opts.node, peer, outgoing);
    try {
      crashPoint('ilp-send:after-reply');
    } catch (e) {
      return this.fail('crashed', (e as Error).message); // as if this process died: nothing settles it
    }
    if (delivery.kind === 'unknown') return this.fail('unknown', delivery.reason);
    let reply: IlpReply | undefined = delivery.kind === 'reply' ? delivery.reply : undefined;
    if (reply && isFulfill(reply) && !createHash('sha256').update(reply.fulfillment).digest().equals(prepare.executionCondition)) {
      reply = reject(this.opts.node, 'F05', `Peer ${peer.id} fulfilled with a wrong preimage`);
    }
    const fulfilled = reply !== undefined && isFulfill(reply);
    const delivered = fulfilled ? ((this.opts.sharedSecret && (await streamAmount(this.opts.sharedSecret, reply!.data))) ?? packet.minDelivery) : undefined;
    try {
      await this.inTurn(() => hooks.settle(packet, delivered));
    } catch (e) {
      return this.fail('unknown', `Settling packet ${packet.id} failed: ${(e as Error).message}`); // it stays reserved
    }
    if (delivery.kind === 'not_sent') return this.notSent(delivery);
    // The receiver takes less than this packet brings (another payment filled it meanwhile): pay
    // would only send it again and again, so stop; the next attempt asks the receiver what is left.
    if (!fulfilled && this.opts.sharedSecret) {
      const room = await receiveRoom(this.opts.sharedSecret, reply!.data);
      if (room !== undefined && room < packet.minDelivery) return this.fail('full', `The receiver takes only ${room} more`);
    }
    return this.forPay(reply!);
  }

  // See the header: the receiver's own final answer reaches pay as F99, R00 as T00, anything else
  // as it came.
  private async forPay(reply: IlpReply): Promise<Buffer> {
    if (isFulfill(reply)) return serializeIlpReply(reply);
    this.lastReject = { code: reply.code, message: reply.message };
    if (reply.code === 'R00') return serializeIlpReply({ ...reply, code: 'T00' });
    const endsPay = reply.code[0] === 'F' && reply.code !== 'F08' && reply.code !== 'F99';
    const receivers = endsPay && this.opts.sharedSecret !== undefined && (await streamAmount(this.opts.sharedSecret, reply.data)) !== undefined;
    return serializeIlpReply(receivers ? { ...reply, code: 'F99' } : reply);
  }

  // A packet that moves nothing here (a probe, or a connection close).
  private async forward(outgoing: IlpPrepare): Promise<Buffer> {
    const delivery = await sendToPeer(this.opts.node, this.opts.peer, outgoing);
    if (delivery.kind === 'reply') return this.forPay(delivery.reply);
    if (delivery.kind === 'not_sent') return this.notSent(delivery);
    return serializeIlpReply(reject(this.opts.node, 'T00', delivery.reason)); // unknown is harmless when nothing moves
  }
}
