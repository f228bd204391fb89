import type { IlpQuoteDetails } from '../ilp/quote';

// The payment method a quote is priced by and its payment sent by (lib/payments/methods), stored on
// the quote and carried to its payment, with the fields that method alone reads. This is the one
// place that names them; everything else on a quote or a payment is method-blind.
export type MethodName = 'local' | 'ilp';

// Local: the payment intent of this node it pays, and that intent's asset.
export interface LocalFields {
  intentId: string;
  destinationAssetId: string;
  walletAddress?: string; // the intent's, whose status the worker reads with the payment (older quotes lack it)
}

// Interledger: what the quote's probe found (the peer, pay's rates, among them the path's minimum,
// and its largest packet), so that sending need not probe again. The receiver's STREAM credentials
// are not kept: the sender reads the incoming payment afresh, for what it still asks, and gets them.
export type IlpFields = IlpQuoteDetails;

export type MethodFields = { method: 'local'; local: LocalFields } | { method: 'ilp'; ilp: IlpFields };

// Stored as named here: `method`, and the method's fields under its name. A quote or payment stored
// before `method` was has its method read from its shape: an Interledger one has `ilp`, a local one
// has its fields at the top. Answers the item with its method's fields in today's form.
export function withMethodFields<T extends Record<string, unknown>>(item: T): Omit<T, 'intentId' | 'destinationAssetId'> & MethodFields {
  const { intentId, destinationAssetId, ...rest } = item;
  if (rest.method === 'ilp' || (rest.method === undefined && rest.ilp)) return { ...rest, method: 'ilp', ilp: rest.ilp as IlpFields };
  const local = (rest.local as LocalFields | undefined) ?? { intentId: intentId as string, destinationAssetId: destinationAssetId as string };
  return { ...rest, method: 'local', local };
}

// What a payment's queue message names besides the payment, for the worker to read together with
// it (lib/payments/methods readAhead): a local payment's intent and its wallet address.
export const readAheadOf = (f: MethodFields): { intentId?: string; walletAddress?: string } =>
  f.method === 'local' ? { intentId: f.local.intentId, ...(f.local.walletAddress && { walletAddress: f.local.walletAddress }) } : {};

// A quote's method and its fields, as its payment carries them.
export const methodFieldsOf = (f: MethodFields): MethodFields => (f.method === 'local' ? { method: 'local', local: f.local } : { method: 'ilp', ilp: f.ilp });
