import { listAssets } from '../assets';
import type { Asset } from '../assets/schemas';
import { nonZeroBalances, ownerOf } from '../ledger';
import { findIntents } from '../payment-intents';
import { findPayments } from '../payments';
import { allPeers } from '../peers';
import type { Node } from '../shared/node';
import type { LedgerCheck } from './schemas';

// The back-office ledger check: every asset's accounts (its liquidity, its settlement, its fees, and
// the intents', payments', peers' and holds' accounts in it) must sum to zero, as each transfer
// credits what it debits within one asset (a cross-asset payment goes through both liquidity
// accounts). It reads every non-zero account by a Scan of the main table (lib/ledger/store.ts),
// then the records of the intents and payments that hold them, 100 a request, and every peer: its cost
// grows with the table, so it is a back-office check, not a route to call often. Transfers that
// commit while it reads may show as an imbalance: a second check on a quiet ledger tells.
export async function checkLedger(node: Node): Promise<LedgerCheck> {
  const checkedAt = new Date().toISOString();
  const [balances, assets] = await Promise.all([nonZeroBalances(node), allAssets(node)]);
  const owners = [...balances.keys()].map((id) => ({ id, owner: ownerOf(id) }));
  const idsOf = (kind: 'intent' | 'payment' | 'peer') =>
    owners.flatMap(({ owner }) => (owner && kind in owner ? [(owner as Record<string, string>)[kind]] : []));
  const [intents, payments, peers] = await Promise.all([
    findIntents(node, idsOf('intent')),
    findPayments(node, idsOf('payment')),
    idsOf('peer').length ? allPeers(node) : [], // every peer in four queries, not one read each
  ]);
  const assetOf = new Map<string, string>([
    ...intents.map((r) => [`intent:${r.id}`, r.assetId] as const),
    ...payments.map((r) => [`payment:${r.id}`, r.sourceAssetId] as const),
    ...peers.map((r) => [`peer:${r.id}`, r.assetId] as const),
  ]);
  const sums = new Map(assets.map((a) => [a.id, { sum: 0n, accounts: 0 }]));
  const unattributed: LedgerCheck['unattributed'] = [];
  for (const { id, owner } of owners) {
    const balance = balances.get(id)!;
    const total = sums.get((owner && 'assetId' in owner ? owner.assetId : assetOf.get(id)) ?? '');
    if (!total) {
      unattributed.push({ account: id, balance: balance.toString() });
      continue;
    }
    total.sum += balance;
    total.accounts++;
  }
  const perAsset = assets.map((a) => {
    const { sum, accounts } = sums.get(a.id)!;
    return { assetId: a.id, assetCode: a.code, assetScale: a.scale, accounts, sum: sum.toString(), balanced: sum === 0n };
  });
  return { balanced: !unattributed.length && perAsset.every((a) => a.balanced), checkedAt, accounts: balances.size, assets: perAsset, unattributed };
}

async function allAssets(node: Node): Promise<Asset[]> {
  const assets: Asset[] = [];
  let cursor: string | undefined;
  do {
    const page = await listAssets(node, 100, cursor);
    assets.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return assets;
}
