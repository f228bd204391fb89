import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { expect } from 'vitest';
import type { TestStack } from '../harness/stack';
import { ledger, packetsOf } from '../harness/world';

// Both nodes' books of the packets some payments of A sent B (issue 28 item 3): a packet is paid
// on both or on neither. Each packet A booked as fulfilled is exactly one transfer on A, whose one
// leg to B's peer account carries it, and exactly one on B (its id the packet's condition), whose
// one leg from A's peer account carries it, for the same amount; no other packet of theirs moved
// money on either node; and the peer accounts moved by those sums since `before`, on both nodes.
type Books = Pick<TestStack, 'dynamo' | 'env'>;
interface Transfer {
  id: string;
  legs: { debit: string; credit: string; amount: bigint }[];
}

async function transfers(node: Books, prefix: string): Promise<Transfer[]> {
  const out: Transfer[] = [];
  let ExclusiveStartKey: Record<string, any> | undefined;
  do {
    const res: any = await node.dynamo.send(
      new ScanCommand({
        TableName: node.env.MAIN_TABLE,
        // The records only: a transfer's further legs are items beside its record (LEG#<n>).
        FilterExpression: 'begins_with(pk, :p) AND sk = :record',
        ExpressionAttributeValues: { ':p': { S: `XFER#${prefix}` }, ':record': { S: 'XFER' } },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    for (const item of res.Items)
      out.push({
        id: item.transferId.S,
        legs: item.legs.L.map((l: any) => ({ debit: l.M.debit.S, credit: l.M.credit.S, amount: BigInt(l.M.amount.S) })),
      });
    ExclusiveStartKey = res.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return out;
}

export async function expectPacketBooks(
  a: Books,
  b: Books,
  peers: { peerOfA: { id: string }; peerOfB: { id: string } },
  paymentIds: string[],
  before: { a: Map<string, bigint>; b: Map<string, bigint> },
) {
  const [peerOnA, peerOnB] = [`peer:${peers.peerOfA.id}`, `peer:${peers.peerOfB.id}`];
  const sent = (await Promise.all(paymentIds.map(async (id) => (await packetsOf(a, id)).map((k) => ({ ...k, paymentId: id }))))).flat();
  const ours = new Set(sent.map((k) => k.id));
  const fulfilled = sent.filter((k) => k.state === 'fulfilled');

  // A: one post per fulfilled packet, and none for another.
  const posts = (await transfers(a, 'ilp-out:')).filter((t) => t.id.endsWith(':post') && paymentIds.some((id) => t.id.startsWith(`ilp-out:${id}:`)));
  expect(posts.map((t) => t.id).sort()).toEqual(fulfilled.map((k) => `ilp-out:${k.paymentId}:${k.id}:post`).sort());
  let sentByA = 0n;
  for (const t of posts) {
    const toPeer = t.legs.filter((l) => l.credit === peerOnA);
    expect(toPeer, t.id).toHaveLength(1);
    sentByA += toPeer[0].amount;
  }

  // B: one credit per fulfilled packet (a voided id moved nothing), and none for another of A's.
  const credits = (await transfers(b, `ilp:${peers.peerOfB.id}:`)).filter((t) => ours.has(t.id.split(':')[2]) && t.legs.length > 0);
  expect(credits.map((t) => t.id.split(':')[2]).sort()).toEqual(fulfilled.map((k) => k.id).sort());
  let takenByB = 0n;
  for (const t of credits) {
    const fromPeer = t.legs.filter((l) => l.debit === peerOnB);
    expect(fromPeer, t.id).toHaveLength(1);
    takenByB += fromPeer[0].amount;
  }

  // The same money, packet by packet, and all that moved the peer accounts meanwhile.
  const amountOn = (ts: Transfer[], account: string, side: 'debit' | 'credit') =>
    new Map(ts.map((t) => [t.id.split(':')[2], t.legs.find((l) => l[side] === account)!.amount]));
  const onA = amountOn(posts, peerOnA, 'credit');
  const onB = amountOn(credits, peerOnB, 'debit');
  for (const k of fulfilled) expect(onA.get(k.id), k.id).toBe(onB.get(k.id));
  expect(sentByA).toBe(takenByB);
  const [aNow, bNow] = [await ledger(a), await ledger(b)];
  expect((aNow.get(peerOnA) ?? 0n) - (before.a.get(peerOnA) ?? 0n)).toBe(sentByA);
  expect((before.b.get(peerOnB) ?? 0n) - (bNow.get(peerOnB) ?? 0n)).toBe(takenByB);
  return { packets: sent.length, fulfilled: fulfilled.length, sentByA, takenByB };
}
