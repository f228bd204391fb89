import { getAsset } from '../assets';
import { assetErrors } from '../assets/errors';
import { type HistoryEntry, ownerOf, transferHistory } from '../ledger';
import { ledgerErrors } from '../ledger/errors';
import { findWithdrawal } from '../liquidity-withdrawals';
import { findIntent } from '../payment-intents';
import { findPayment } from '../payments';
import { findPeer } from '../peers';
import { amountOf, fromLedger } from '../shared/amounts';
import { DomainError } from '../shared/errors';
import type { Node } from '../shared/node';
import type { LedgerTransfer } from './schemas';

// GET /ledger/transfers: the transfers that touched one account, newest first, for reconciling it
// with the FSP's bank statements; they sum to its balance. Each is written with its transfer
// (lib/ledger/store.ts), so a transfer the API answered is in the history at once. The account's
// owner is read first (its asset, peer, intent or payment, of this tenant; 404 when none), for
// the asset its amounts are in.
export async function listTransfers(node: Node, accountId: string, limit: number, cursor?: string) {
  const asset = await assetOfAccount(node, accountId);
  if (!asset) throw ledgerErrors.unknownAccount(accountId);
  const page = await transferHistory(node, accountId, limit, cursor);
  return { items: page.items.map((e) => view(accountId, e, asset)), nextCursor: page.nextCursor };
}

function view(accountId: string, e: HistoryEntry, asset: { code: string; scale: number }): LedgerTransfer {
  return {
    id: e.transferId,
    createdAt: e.createdAt,
    kind: e.kind,
    resource: e.resource,
    direction: e.debit === accountId ? 'debit' : 'credit',
    amount: amountOf(fromLedger(e.amount, asset.scale), asset),
    units: e.amount.toString(),
    debitAccount: e.debit,
    creditAccount: e.credit,
  };
}

// The asset an account's amounts are in, read from the record that owns it; undefined when there
// is no such record (a hold's payment and a withdrawal's own record, too, must exist).
async function assetOfAccount(node: Node, accountId: string): Promise<{ code: string; scale: number } | undefined> {
  const owner = ownerOf(accountId);
  if (!owner) return undefined;
  if ('intent' in owner) {
    const r = await findIntent(node, owner.intent);
    return r && { code: r.assetCode, scale: r.assetScale };
  }
  if ('payment' in owner) {
    const r = await findPayment(node, owner.payment);
    return r && { code: r.debitAmount.assetCode, scale: r.debitAmount.assetScale };
  }
  if ('peer' in owner) {
    const r = await findPeer(node, owner.peer);
    return r && { code: r.assetCode, scale: r.assetScale };
  }
  const [kind, recordId] = accountId.split(':');
  const holder = kind === 'hold' ? await findPayment(node, recordId) : kind === 'withdrawal' ? await findWithdrawal(node, recordId) : true;
  return holder ? await assetIfAny(node, owner.assetId) : undefined;
}

const assetIfAny = (node: Node, id: string) =>
  getAsset(node, id).catch((e) => {
    if (e instanceof DomainError && e.code === assetErrors.notFound.code) return undefined;
    throw e;
  });
