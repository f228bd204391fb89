import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config';
import { db } from '../db';
import { notFound } from '../errors';
import type { Quote, QuoteRecord } from './schemas';

// A quote states what the sender pays (debitAmount, in the sender's asset) to deliver
// receiveAmount (in the receiver's asset) to an incoming payment. Creating one is in ./create.ts,
// apart, because pricing a remote receiver carries the Interledger clients, which reading a quote
// (and every payment route) does not need.
export const quoteKey = (id: string) => ({ pk: `QUOTE#${id}`, sk: 'QUOTE' });

export function quoteView(r: QuoteRecord): Quote {
  return {
    id: r.id,
    walletAddress: r.walletAddress,
    receiver: r.receiver,
    debitAmount: r.debitAmount,
    receiveAmount: r.receiveAmount,
    estimatedExchangeRate: r.estimatedExchangeRate,
    expiresAt: r.expiresAt,
    createdAt: r.createdAt,
  };
}

export async function getQuoteRecord(id: string): Promise<QuoteRecord | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: config.MAIN_TABLE, Key: quoteKey(id), ConsistentRead: true }));
  if (!Item) return undefined;
  const { pk, sk, ...record } = Item;
  return record as QuoteRecord;
}

export async function getQuote(id: string): Promise<Quote> {
  const r = await getQuoteRecord(id);
  if (!r) throw notFound('quote', id);
  return quoteView(r);
}
