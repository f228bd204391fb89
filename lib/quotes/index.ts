import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { amountOf, debitFor, receiveFor, toLedger } from '../amounts';
import { db } from '../db';
import { config } from '../config';
import { DomainError, notFound } from '../errors';
import { checkAmountAsset, intentView } from '../payment-intents';
import { findIntent } from '../payment-intents/store';
import { resolveRate } from '../rates';
import { intentIdFromReceiver, intentUrl } from '../resources';
import { commit } from '../tx';
import { findWalletRecordByUrl } from '../wallet-addresses';
import type { CreateQuote, Quote, QuoteRecord } from './schemas';

// A quote states what the sender pays (debitAmount, in the sender's asset) to deliver
// receiveAmount (in the receiver's asset) to a payment intent. Cross-currency quotes use the
// FSP-wide rate from the rates resolver. Rounding favours the service: the receive amount is
// rounded down, a debit computed from a receive amount is rounded up.
export const quoteKey = (id: string) => ({ pk: `QUOTE#${id}`, sk: 'QUOTE' });

const unprocessable = (code: string, detail: string) => new DomainError('unprocessable', code, detail);

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

export async function createQuote(input: CreateQuote): Promise<Quote> {
  if (input.debitAmount && input.receiveAmount) {
    throw new DomainError('invalid', 'invalid_request', 'Give debitAmount or receiveAmount, not both', [
      { field: 'receiveAmount', message: 'cannot be given together with debitAmount' },
    ]);
  }
  const intentId = intentIdFromReceiver(input.receiver);
  const [sender, intent] = await Promise.all([findWalletRecordByUrl(input.walletAddress), findIntent(intentId)]);
  if (!sender) throw unprocessable('wallet_address_not_found', `No wallet address ${input.walletAddress}`);
  if (!intent) throw unprocessable('receiver_not_found', `No payment intent ${intentId}`);
  const intentState = intentView(intent).state;
  if (intentState !== 'pending' && intentState !== 'processing') {
    throw unprocessable('receiver_not_open', `Payment intent ${intentId} is ${intentState}; it cannot receive payments`);
  }
  const rate = await resolveRate({ sourceAssetCode: sender.assetCode, destinationAssetCode: intent.assetCode });
  const src = { code: sender.assetCode, scale: sender.assetScale };
  const dst = { code: intent.assetCode, scale: intent.assetScale };
  const remaining = intent.incomingValue === null ? null : BigInt(intent.incomingValue) - BigInt(intent.received);

  let debit: bigint;
  let receive: bigint;
  if (input.debitAmount) {
    checkAmountAsset(input.debitAmount, src, 'debitAmount');
    debit = BigInt(input.debitAmount.value);
    receive = receiveFor(debit, rate.rate, src.scale, dst.scale);
  } else {
    if (input.receiveAmount) checkAmountAsset(input.receiveAmount, dst, 'receiveAmount');
    else if (remaining === null) {
      throw unprocessable('amount_required', 'The payment intent has no incomingAmount: give debitAmount or receiveAmount');
    }
    receive = input.receiveAmount ? BigInt(input.receiveAmount.value) : remaining!;
    debit = debitFor(receive, rate.rate, src.scale, dst.scale);
  }
  if (receive <= 0n || debit <= 0n) throw unprocessable('amount_too_small', 'The quote would deliver nothing at this rate and scale');
  if (remaining !== null && receive > remaining) {
    throw unprocessable('amount_exceeds_remaining', `The payment intent can receive at most ${remaining} (scale ${dst.scale}) more`);
  }
  toLedger(debit, src.scale, 'debitAmount.value');
  toLedger(receive, dst.scale, 'receiveAmount.value');

  const now = Date.now();
  const record: QuoteRecord = {
    id: randomUUID(),
    walletAddress: sender.address,
    receiver: intentUrl(intent.id),
    debitAmount: amountOf(debit, src),
    receiveAmount: amountOf(receive, dst),
    estimatedExchangeRate: rate.rate,
    expiresAt: new Date(Math.min(now + config.QUOTE_LIFETIME_SECS * 1000, Date.parse(intent.expiresAt))).toISOString(),
    createdAt: new Date(now).toISOString(),
    walletAddressId: sender.id,
    intentId: intent.id,
    sourceAssetId: sender.assetId,
    destinationAssetId: intent.assetId,
  };
  await commit([{ Put: { TableName: config.MAIN_TABLE, Item: { ...quoteKey(record.id), ...record } } }]);
  return quoteView(record);
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
