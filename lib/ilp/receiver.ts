import * as z from 'zod';
import { amountValue } from '../shared/values';
import { ilpErrors } from './errors';

// Another node's incoming payment, as this node reads it over Open Payments to pay it.
export interface RemoteReceiver {
  url: string;
  state: 'open' | 'completed' | 'expired' | 'closed'; // closed: it offers no ILP credentials
  asset: { code: string; scale: number };
  incoming: bigint | null; // what it asks for in all, if anything
  received: bigint;
  ilpAddress: string;
  sharedSecret: Buffer;
  expiresAt?: string;
}

const remoteAmount = z.object({ value: amountValue, assetCode: z.string().min(1), assetScale: z.number().int().min(0).max(255) });
const remoteIncomingPayment = z.object({
  completed: z.boolean(),
  expiresAt: z.string().optional(),
  incomingAmount: remoteAmount.optional(),
  receivedAmount: remoteAmount,
  methods: z
    .array(z.union([z.object({ type: z.literal('ilp'), ilpAddress: z.string().min(1), sharedSecret: z.string().min(1) }), z.object({ type: z.string() })]))
    .default([]),
});

// What this node uses of another node's incoming payment. Responses are not validated by the
// client (see lib/open-payments/client.ts), so the answer is checked here: a malformed one is a
// 502, never a 500.
export function receiverFrom(url: string, answer: unknown): RemoteReceiver {
  const parsed = remoteIncomingPayment.safeParse(answer);
  if (!parsed.success)
    throw ilpErrors.receiverInvalid(
      `The incoming payment at ${url} is not a valid Open Payments incoming payment: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`,
    );
  const read = parsed.data;
  const ilp = read.methods.find((m): m is { type: 'ilp'; ilpAddress: string; sharedSecret: string } => m.type === 'ilp' && 'ilpAddress' in m);
  const expired = read.expiresAt !== undefined && Date.parse(read.expiresAt) <= Date.now();
  return {
    url,
    state: read.completed ? 'completed' : expired ? 'expired' : ilp ? 'open' : 'closed',
    asset: { code: read.receivedAmount.assetCode, scale: read.receivedAmount.assetScale },
    incoming: read.incomingAmount ? BigInt(read.incomingAmount.value) : null,
    received: BigInt(read.receivedAmount.value),
    ilpAddress: ilp?.ilpAddress ?? '',
    sharedSecret: Buffer.from(ilp?.sharedSecret ?? '', 'base64url'),
    ...(read.expiresAt && { expiresAt: read.expiresAt }),
  };
}
