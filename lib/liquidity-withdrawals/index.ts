import { getAsset } from '../assets';
import { type AccountId, account, moveCovered, refuseTooLarge, transfer } from '../ledger';
import { ledgerErrors } from '../ledger/errors';
import { countWithdrawals, getPeerRecord } from '../peers';
import { event } from '../platform/events';
import { newId, uuidFrom } from '../platform/ids';
import { commit, type Write } from '../platform/tx';
import { amountOf, toLedger } from '../shared/amounts';
import { commonErrors } from '../shared/errors';
import type { Node } from '../shared/node';
import { withdrawalErrors } from './errors';
import { type Ending, mayEnd, stateAfter } from './rules';
import type { LiquidityWithdrawal } from './schemas';
import * as store from './store';

export { withdrawalLookup } from './store';

// Two-phase withdrawals of an asset's liquidity or a peer's credit line (Rafiki's, with a
// timeout): creating one moves the amount to the withdrawal's own account (account.withdrawal),
// where nothing can spend it; posting moves it on to the asset's settlement account (it leaves the
// ledger), voiding back where it came from. Each step is one transaction: the change of state (on
// the condition that the withdrawal is still pending), its transfer and its webhook, so that of
// racing posts, voids and the timeout exactly one commits.

// Where a withdrawal is taken from, and returned to when it is voided.
interface Source {
  account: AccountId;
  assetId: string;
  asset: { code: string; scale: number };
  peerId: string | null;
  holder: string; // as the insufficient_liquidity problem names it
}
// A peer's withdrawals are counted on the peer while they are pending: it cannot be deleted under one.
const peerCount = (node: Node, peerId: string | null, delta: 1 | -1): Write[] => (peerId ? [countWithdrawals(node, peerId, delta)] : []);
const sourceOf = (w: LiquidityWithdrawal) => (w.peerId ? account.peer(w.peerId) : account.liquidity(w.assetId));

// `id`: the withdrawal's, when the client names it (Rafiki's do, and post and void it by that id).
export async function holdAssetLiquidity(node: Node, assetId: string, value: string, idempotencyKey?: string, id?: string): Promise<LiquidityWithdrawal> {
  const asset = await getAsset(node, assetId);
  const source = { account: account.liquidity(asset.id), assetId: asset.id, asset, peerId: null, holder: `Asset ${asset.code}` };
  return hold(node, source, value, idempotencyKey, id);
}

export async function holdPeerLiquidity(node: Node, peerId: string, value: string, idempotencyKey?: string, id?: string): Promise<LiquidityWithdrawal> {
  const p = await getPeerRecord(node, peerId);
  const source = { account: account.peer(p.id), assetId: p.assetId, asset: { code: p.assetCode, scale: p.assetScale }, peerId: p.id, holder: `Peer ${p.id}` };
  return hold(node, source, value, idempotencyKey, id);
}

// With an Idempotency-Key the withdrawal's id (and so its transfers') comes from it, as a one-step
// withdrawal's transfer id does: a retry after an unclear failure finds it made and answers it. An
// id the client chose does the same.
async function hold(node: Node, source: Source, value: string, idempotencyKey?: string, given?: string): Promise<LiquidityWithdrawal> {
  const units = toLedger(BigInt(value), source.asset.scale, 'amount');
  const id = given ?? (idempotencyKey ? uuidFrom(`${source.account}|${units}|${idempotencyKey}`) : newId());
  const now = Date.now();
  const w: LiquidityWithdrawal = {
    id,
    state: 'pending',
    assetId: source.assetId,
    peerId: source.peerId,
    amount: amountOf(BigInt(value), source.asset),
    expiresAt: new Date(now + node.liquidityWithdrawalTimeoutSecs * 1000).toISOString(),
    createdAt: new Date(now).toISOString(),
  };
  const moved = await moveCovered(
    node,
    transferId(id, 'hold'),
    { kind: 'withdrawal', resource: { type: 'liquidity_withdrawal', id } },
    { debit: source.account, credit: account.withdrawal(id, w.assetId), amount: units },
    {
      writes: [store.insertWithdrawal(node, w), ...peerCount(node, w.peerId, 1)],
      outgoing: [event(store.partition(node, id), 'liquidity_withdrawal.created', w)],
    },
  );
  if (moved === 'insufficient') throw ledgerErrors.insufficientLiquidity(source.holder, value, source.asset.scale);
  return moved === 'moved' ? w : getWithdrawal(node, id);
}

export const findWithdrawal = store.findWithdrawal;

export async function getWithdrawal(node: Node, id: string): Promise<LiquidityWithdrawal> {
  const w = await store.findWithdrawal(node, id);
  if (!w) throw withdrawalErrors.notFound(id);
  return w;
}

// The pending withdrawals (what is still held), newest first.
export const listPendingWithdrawals = (node: Node, limit: number, cursor?: string) => store.listPendingWithdrawals(node, limit, cursor);

export const postWithdrawal = (node: Node, id: string) => endOnRequest(node, id, 'post');
export const voidWithdrawal = (node: Node, id: string) => endOnRequest(node, id, 'void');

// A post or void: 409 from a final state. A post past the timeout finds the withdrawal due to be
// voided, and voids it as the expirer would (exactly once: the same conditional change), then 409.
async function endOnRequest(node: Node, id: string, ending: 'post' | 'void'): Promise<LiquidityWithdrawal> {
  const now = new Date().toISOString();
  let w = await getWithdrawal(node, id);
  if (mayEnd(w, ending, now)) {
    const ended = await tryEnd(node, w, ending, now);
    if (ended) return ended;
    w = await getWithdrawal(node, id); // another ending came first
  }
  if (mayEnd(w, 'timeout', now)) w = (await tryEnd(node, w, 'timeout', now)) ?? (await getWithdrawal(node, id));
  throw commonErrors.invalidState('Liquidity withdrawal', id, w.state, stateAfter(ending));
}

// Scheduled: voids the pending withdrawals past their timeout; answers how many it voided.
export async function expireDueWithdrawals(node: Node): Promise<number> {
  const now = new Date().toISOString();
  let voided = 0;
  for (const id of await store.listDueWithdrawals(node, now)) {
    const w = await store.findWithdrawal(node, id);
    if (w && mayEnd(w, 'timeout', now) && (await tryEnd(node, w, 'timeout', now))) voided++;
  }
  return voided;
}

// Ends `w` as `ending` at `now`: its change of state, its transfer out of the withdrawal's
// account and its webhook in one transaction. Undefined when it had ended meanwhile.
async function tryEnd(node: Node, w: LiquidityWithdrawal, ending: Ending, now: string): Promise<LiquidityWithdrawal | undefined> {
  const posting = ending === 'post';
  const ended: LiquidityWithdrawal = {
    ...w,
    state: stateAfter(ending),
    ...(posting ? { postedAt: now } : { voidedAt: now, voidedBy: ending === 'timeout' ? 'timeout' : 'request' }),
  };
  const leg = {
    debit: account.withdrawal(w.id, w.assetId),
    credit: posting ? account.settlement(w.assetId) : sourceOf(w),
    amount: toLedger(BigInt(w.amount.value), w.amount.assetScale),
  };
  const refusals = await commit(
    node,
    [
      store.endWithdrawal(node, w.id, ending, now),
      ...peerCount(node, w.peerId, -1),
      ...(await transfer(node, transferId(w.id, posting ? 'post' : 'void'), { kind: 'withdrawal', resource: { type: 'liquidity_withdrawal', id: w.id } }, [
        leg,
      ])),
    ],
    [event(store.partition(node, w.id), `liquidity_withdrawal.${ended.state}`, ended)],
  );
  if (refusals.includes(store.WITHDRAWAL_ENDED)) return undefined;
  refuseTooLarge(refusals);
  if (refusals.length) throw new Error(`Liquidity withdrawal ${w.id} could not end: ${refusals.join(', ')}`);
  return ended;
}

const transferId = (id: string, step: 'hold' | 'post' | 'void') => `withdrawal:${id}:${step}`;
