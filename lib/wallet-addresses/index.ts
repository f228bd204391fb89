import { findAssetByCode } from '../assets';
import { assetErrors } from '../assets/errors';
import { event } from '../platform/events';
import { newId } from '../platform/ids';
import { logger } from '../platform/log';
import { scoped } from '../platform/store';
import { commit, type Write } from '../platform/tx';
import type { Node } from '../shared/node';
import { isResourceId } from '../shared/resources';
import { canonicalAddress, canonicalBase, canonicalOrUndefined, newAddress } from '../shared/wallet-address-url';
import { operatorAddressClaims, UNDER_TENANT } from '../tenants/claims';
import { walletAddressErrors } from './errors';
import type { CreateWalletAddress, Ed25519Jwk, UpdateWalletAddress, WalletAddress, WalletAddressKey, WalletAddressNotFound } from './schemas';
import * as store from './store';

// Whether new payment intents on the wallet address wait for the FSP's approval: its own setting,
// or else the node's (INCOMING_APPROVAL_REQUIRED).
export const requiresApproval = (node: Node, wallet: Pick<store.StoredWallet, 'approvalRequired'>) => wallet.approvalRequired ?? node.incoming.approvalRequired;

// The view shows the setting in effect.
const viewOf = (node: Node, { assetId, ...wallet }: store.StoredWallet & { assetId?: string }): WalletAddress => ({
  ...wallet,
  approvalRequired: requiresApproval(node, wallet),
});

// The base may never change: this container checks the tenant's recorded one against its own
// before the tenant's first creation, and again a minute later, rather than on every creation.
// None recorded: it is recorded with the creation (answered here as the write that does), so that a
// refused creation writes nothing. Each tenant records its own, so each is checked on its own.
const BASE_CHECK_SECS = 60;
const baseCheckedAt = new Map<string, number>(); // by tenant

async function checkBase(node: Node, base: string): Promise<Write[]> {
  if (Date.now() - (baseCheckedAt.get(node.tenant.id) ?? -Infinity) < BASE_CHECK_SECS * 1000) return [];
  const recorded = await store.recordedBase(node);
  if (recorded === undefined) return [store.recordBase(node, base)];
  if (recorded !== base) throw walletAddressErrors.baseChanged(recorded, base);
  baseCheckedAt.set(node.tenant.id, Date.now());
  return [];
}

// Where the node's wallet addresses are, as a refusal names it: a tenant's, under its own prefix.
const addressBase = (node: Node) => ({
  url: node.urls.walletAddresses,
  name: node.tenant.operator ? 'WALLET_ADDRESS_URL' : `the walletAddressPrefix of tenant ${node.tenant.id}`,
});

export async function createWalletAddress(node: Node, input: CreateWalletAddress): Promise<WalletAddress> {
  const base = canonicalBase(node.urls.walletAddresses);
  const recordBase = await checkBase(node, base);
  const address = newAddress(input.address, addressBase(node));
  const asset = await findAssetByCode(node, input.assetCode);
  if (!asset) throw assetErrors.unknown(input.assetCode);
  const wallet: store.StoredWallet = {
    id: newId(),
    address,
    assetCode: asset.code,
    assetScale: asset.scale,
    publicName: input.publicName ?? null,
    ...(input.approvalRequired !== undefined && { approvalRequired: input.approvalRequired }),
    status: input.status ?? 'active',
    createdAt: new Date().toISOString(),
  };
  // The operator's addresses share the origin with the tenants' prefixes: none may be under one.
  const claims = node.tenant.operator ? operatorAddressClaims(node, address) : [];
  const refusals = await commit(node, [...store.insertWalletAddress(node, { ...wallet, assetId: asset.id }), ...claims, ...recordBase]);
  // Another creation recorded the base meanwhile: this one is checked against it.
  if (refusals.includes(store.BASE_RECORDED)) return createWalletAddress(node, input);
  if (refusals.includes('wallet_address_exists')) throw walletAddressErrors.exists(address);
  if (refusals.includes(UNDER_TENANT)) throw walletAddressErrors.underTenant(address);
  return viewOf(node, wallet);
}

async function storedWallet(node: Node, id: string): Promise<store.StoredWallet> {
  const wallet = await store.findWalletAddress(node, id);
  if (!wallet) throw walletAddressErrors.notFound(`with id ${id}`);
  return wallet;
}

export const getWalletAddress = async (node: Node, id: string) => viewOf(node, await storedWallet(node, id));

// Look-up by URL in any letter case. Returns undefined for a URL that cannot be a wallet address.
export async function findWalletAddressByUrl(node: Node, url: string): Promise<WalletAddress | undefined> {
  const address = canonicalOrUndefined(url, node.urls.walletAddresses);
  if (!address) return undefined;
  const record = await store.findWalletAddressByUrl(node, address);
  return record && viewOf(node, record);
}

// The look-up of the wallet address at `url` (any letter case); none for a URL that cannot be one.
export function walletByUrlLookup(node: Node, url: string) {
  const address = canonicalOrUndefined(url, node.urls.walletAddresses);
  return address ? store.walletByUrlLookup(node, address) : undefined;
}

export async function listWalletAddresses(node: Node, q: { limit: number; cursor?: string }) {
  const page = await store.listWalletAddresses(node, q.limit, q.cursor);
  return { ...page, items: page.items.map((w) => viewOf(node, w)) };
}

export async function getWalletAddressByUrl(node: Node, url: string): Promise<WalletAddress> {
  const wallet = await findWalletAddressByUrl(node, url);
  if (!wallet) throw walletAddressErrors.notFound(url);
  return wallet;
}

// For payments: a wallet address's id, URL and asset never change, so this container keeps what
// it read (never publicName, which can change, and never a miss, which a creation can end). Its
// approvalRequired and status can change: a creation reads them afresh (standingNow), a funding
// checks them in its own transaction (activeForSending).
const CACHE_MAX = 10_000;
const recordCache = new Map<string, store.WalletRecord>();

// Only payment accounts: the service's own address (lib/open-payments/identity.ts) takes no payments.
export type WalletRecord = store.WalletRecord;
export async function findWalletRecordByUrl(node: Node, url: string, fresh = false): Promise<WalletRecord | undefined> {
  const address = canonicalOrUndefined(url, node.urls.walletAddresses);
  if (!address) return undefined;
  const key = scoped(node, address); // the operator's base holds the tenants' prefixes
  const cached = fresh ? undefined : recordCache.get(key);
  if (cached) return cached;
  const found = await store.findWalletAddressByUrl(node, address);
  const record = found?.assetId ? found : undefined;
  if (record) {
    if (recordCache.size >= CACHE_MAX && !recordCache.has(key)) recordCache.delete(recordCache.keys().next().value!);
    recordCache.set(key, { ...record, publicName: null });
  }
  return record;
}

export { isActive, standingOf, WALLET_INACTIVE, walletLookup } from './store';

// The conditions that other domains' transactions put on a wallet address as they commit, whatever
// this container's cache said. For a transaction that its owner's side starts on the address (a
// quote, a payment, its funding): it is active (WALLET_INACTIVE otherwise).
export const activeForSending = (node: Node, address: string): Write => store.walletActive(node, address);
// The wallet address at `url` that a new quote or payment intent names, which must be active: a
// cached record that says inactive is read afresh before the refusal (it may have been made active
// since); one that says active is read again by the creation (standingNow).
export async function activeWalletRecord(node: Node, url: string): Promise<WalletRecord> {
  let wallet = await findWalletRecordByUrl(node, url);
  if (wallet?.status === 'inactive') wallet = await findWalletRecordByUrl(node, url, true);
  if (!wallet) throw walletAddressErrors.unknown(url);
  if (wallet.status === 'inactive') throw walletAddressErrors.inactive(wallet.address);
  return wallet;
}

// What a new intent, quote or payment on `wallet` (perhaps cached) must find now: its status and
// approvalRequired read afresh, beside the creation's other reads (lib/platform/store readTogether);
// refused if inactive. Not a condition in the creation's transaction: every creation on one wallet
// address would contend on its record. A change of status, which reads no intent, quote or payment,
// is then ordered after a creation that read the address active; money never moves from a frozen
// address, which its funding checks in its own transaction (activeForSending).
export async function standingNow(node: Node, wallet: WalletRecord): Promise<WalletRecord> {
  const standing = await store.standingOf(node, wallet.address);
  if (standing && !standing.active) throw walletAddressErrors.inactive(wallet.address);
  const { approvalRequired, ...known } = wallet;
  return { ...known, status: 'active', ...(standing?.approvalRequired !== undefined && { approvalRequired: standing.approvalRequired }) };
}

// For a list filtered by wallet address: the id of the one at `url`, or null when there is none;
// a URL that cannot be a wallet address is refused (400, naming `field`).
export async function walletAddressIdOf(node: Node, url: string, field: string): Promise<string | null> {
  canonicalAddress(url, node.urls.walletAddresses, field);
  return (await findWalletRecordByUrl(node, url))?.id ?? null;
}

// For a filter that names a wallet address by its id or its URL: its URL, or null when none is
// there; a value that is neither an id nor a URL that can be one is refused (400, naming `field`).
export async function walletAddressUrlOf(node: Node, ref: string, field: string): Promise<string | null> {
  if (isResourceId(ref)) return (await store.findWalletAddress(node, ref))?.address ?? null;
  return canonicalAddress(ref, node.urls.walletAddresses, field);
}

// Each change is told to the FSP (wallet_address.updated, with the wallet address as it is after).
export async function updateWalletAddress(node: Node, id: string, changes: UpdateWalletAddress): Promise<WalletAddress> {
  const wallet = await storedWallet(node, id);
  const view = viewOf(node, { ...wallet, ...changes });
  await commit(node, store.updating(node, wallet, changes), [event(store.walletPartition(node, wallet.address), 'wallet_address.updated', view)]);
  if (changes.approvalRequired !== undefined || changes.status !== undefined) recordCache.delete(scoped(node, wallet.address));
  return view;
}

export async function addKey(node: Node, id: string, jwk: Ed25519Jwk): Promise<WalletAddressKey> {
  const wallet = await storedWallet(node, id);
  const key: WalletAddressKey = { walletAddressId: wallet.id, kid: jwk.kid, jwk, createdAt: new Date().toISOString(), revokedAt: null };
  const refusals = await commit(node, store.insertKey(node, wallet.address, key));
  if (refusals.includes('key_exists')) throw walletAddressErrors.keyExists(key.kid);
  if (refusals.includes('too_many_keys')) throw walletAddressErrors.tooManyKeys();
  return key;
}

export async function listKeys(node: Node, id: string): Promise<WalletAddressKey[]> {
  const wallet = await storedWallet(node, id);
  return (await store.findWithKeys(node, wallet.address)).keys;
}

export async function revokeKey(node: Node, id: string, kid: string): Promise<WalletAddressKey> {
  const wallet = await storedWallet(node, id);
  // Refused: unknown, or revoked before (then unchanged); the read tells which.
  await commit(node, store.revoking(node, wallet.address, kid, new Date().toISOString()));
  const key = await store.findKey(node, wallet.address, kid);
  if (!key) throw walletAddressErrors.keyNotFound(id, kid);
  return key;
}

// The service's own address (its Open Payments client identity, lib/open-payments/identity.ts):
// published like a wallet address, with its one key.
export async function publishServiceIdentity(node: Node, address: string, publicName: string, jwk: Ed25519Jwk): Promise<void> {
  const key: WalletAddressKey = { walletAddressId: '', kid: jwk.kid, jwk, createdAt: new Date().toISOString(), revokedAt: null };
  await commit(node, store.putServiceIdentity(node, address, publicName, key));
}

// A look-up of an unknown wallet address that could be made (a canonical new address under this
// node's prefix) tells the FSP, which may make it (wallet_address.not_found, with its URL, as
// Rafiki's on-demand wallet addresses): at most once per address in NOT_FOUND_WINDOW_SECS, so that a
// client's retries, and many clients asking at once, make one event. After the window a look-up
// tells again: an FSP that chose not to make it, or could not, hears of it once in five minutes.
// A tenant is told of at most NOT_FOUND_EVENTS_PER_MINUTE addresses a minute; the rest are told
// when looked up again in a later minute (an on-demand client retries its look-up).
const NOT_FOUND_WINDOW_SECS = 300;
export const NOT_FOUND_EVENTS_PER_MINUTE = 100;
// The minute in which this container found each tenant's count full: its further misses in that
// minute write nothing (under a flood, each would be a cancelled transaction on the one count item).
const fullMinutes = new Map<string, number>();

// Whether this look-up told the FSP (not one told of it already in its window, nor one over the count).
async function tellNotFound(node: Node, url: string): Promise<boolean> {
  let address: string;
  try {
    address = newAddress(url, canonicalBase(node.urls.walletAddresses));
  } catch {
    return false; // no wallet address could be there
  }
  const data: WalletAddressNotFound = { walletAddressUrl: address };
  const nowSecs = Math.floor(Date.now() / 1000);
  const minute = nowSecs - (nowSecs % 60);
  const tenant = scoped(node, '');
  if (fullMinutes.get(tenant) === minute) return false;
  const refused = await commit(
    node,
    [store.tellingNotFound(node, address, nowSecs, NOT_FOUND_WINDOW_SECS), store.countNotFound(node, minute, NOT_FOUND_EVENTS_PER_MINUTE)],
    [event(store.notFoundPartition(node, address), 'wallet_address.not_found', data)],
  );
  if (refused.includes(store.NOT_FOUND_RATE_OVER) && !refused.includes(store.NOT_FOUND_TOLD)) {
    fullMinutes.set(tenant, minute);
    logger.warn('wallet_address.not_found: this minute has had as many as a tenant is told of; the rest are told when looked up later', {
      address,
      perMinute: NOT_FOUND_EVENTS_PER_MINUTE,
    });
  }
  return refused.length === 0;
}

// An address the FSP was just told of, looked for again every NOT_FOUND_POLL_MS for the node's
// notFoundWaitMs (WALLET_ADDRESS_NOT_FOUND_WAIT_MS), so that one it makes at once is answered by
// the same GET (Rafiki's getOrPollByUrl). Only the look-up that told waits: the others of its
// window answer at once (the client's retry finds what the FSP made), so that the waits, and their
// reads, are bounded as the events are (NOT_FOUND_EVENTS_PER_MINUTE).
const NOT_FOUND_POLL_MS = 100;
async function awaitMade(node: Node, url: string) {
  const until = Date.now() + node.notFoundWaitMs;
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(NOT_FOUND_POLL_MS, until - Date.now())));
    const made = await findWalletAddressByUrl(node, url);
    if (made) return made;
  }
  return undefined;
}

// The public view and active keys, for the Open Payments resource server (an inactive wallet
// address's too: a payer is then told it is inactive, not that it is not there). A miss is told
// to the FSP (tellNotFound).
export async function publishedWalletAddress(node: Node, url: string) {
  let wallet = await findWalletAddressByUrl(node, url);
  if (!wallet) {
    // The answer is 404 whether or not the FSP could be told (a flood's contention on the minute's
    // count may outlast the retries): nothing was written, so a later look-up tells.
    const told = await tellNotFound(node, url).catch((e) => {
      logger.error('wallet_address.not_found could not be told', { url, error: (e as Error).message });
      return false;
    });
    if (told && node.notFoundWaitMs > 0) wallet = await awaitMade(node, url);
    if (!wallet) return undefined;
  }
  return {
    id: wallet.address,
    ...(wallet.publicName && { publicName: wallet.publicName }),
    assetCode: wallet.assetCode,
    assetScale: wallet.assetScale,
    authServer: node.urls.authServer,
    resourceServer: node.urls.resourceServer,
  };
}

export async function publishedKeys(node: Node, url: string) {
  const address = canonicalOrUndefined(url, node.urls.walletAddresses);
  if (!address) return undefined;
  const { wallet, keys } = await store.findWithKeys(node, address);
  if (!wallet) return undefined;
  return { keys: keys.filter((k) => !k.revokedAt).map((k) => k.jwk) };
}
