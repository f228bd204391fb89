import { randomUUID } from 'node:crypto';
import { findAssetByCode } from '../assets';
import { config } from '../config';
import { DomainError, notFound } from '../errors';
import { resourceServerUrl } from '../resources';
import { commit } from '../tx';
import { canonicalBase, canonicalOrUndefined, newAddress } from './address';
import type { CreateWalletAddress, Ed25519Jwk, WalletAddress, WalletAddressKey } from './schemas';
import * as store from './store';

const baseChanged = (recorded: string, current: string) =>
  new DomainError(
    'conflict',
    'wallet_address_url_changed',
    `WALLET_ADDRESS_URL is ${current}, but wallet addresses were first created under ${recorded}; ` +
      'the base cannot change once set, so restore WALLET_ADDRESS_URL to its first value',
  );

// The base may never change: this container checks the recorded one against its own (recording it
// if none is) before its first creation, and again a minute later, rather than on every creation.
const BASE_CHECK_SECS = 60;
let baseCheckedAt = -Infinity;

async function checkBase(base: string): Promise<void> {
  if (Date.now() - baseCheckedAt < BASE_CHECK_SECS * 1000) return;
  const recorded = (await store.recordedBase()) ?? (await store.recordBase(base));
  if (recorded !== base) throw baseChanged(recorded, base);
  baseCheckedAt = Date.now();
}

export async function createWalletAddress(input: CreateWalletAddress): Promise<WalletAddress> {
  const base = canonicalBase(config.WALLET_ADDRESS_URL);
  await checkBase(base);
  const address = newAddress(input.address, base);
  const asset = await findAssetByCode(input.assetCode);
  if (!asset) {
    throw new DomainError('unprocessable', 'unknown_asset', `No asset with code ${input.assetCode}; create it with POST /assets first`);
  }
  const wallet: WalletAddress = {
    id: randomUUID(),
    address,
    assetCode: asset.code,
    assetScale: asset.scale,
    publicName: input.publicName ?? null,
    createdAt: new Date().toISOString(),
  };
  if ((await commit(store.insertWalletAddress({ ...wallet, assetId: asset.id }))).length) {
    throw new DomainError('conflict', 'wallet_address_exists', `The wallet address ${address} already exists`);
  }
  return wallet;
}

export async function getWalletAddress(id: string): Promise<WalletAddress> {
  const wallet = await store.findWalletAddress(id);
  if (!wallet) throw notFound('wallet address', id);
  return wallet;
}

// Look-up by URL in any letter case. Returns undefined for a URL that cannot be a wallet address.
export async function findWalletAddressByUrl(url: string): Promise<WalletAddress | undefined> {
  const address = canonicalOrUndefined(url, config.WALLET_ADDRESS_URL);
  if (!address) return undefined;
  const record = await store.findWalletAddressByUrl(address);
  if (!record) return undefined;
  const { assetId, ...view } = record;
  return view;
}

export async function getWalletAddressByUrl(url: string): Promise<WalletAddress> {
  const wallet = await findWalletAddressByUrl(url);
  if (!wallet) throw new DomainError('not_found', 'wallet_address_not_found', `No wallet address ${url}`);
  return wallet;
}

// For payments: a wallet address's id, URL and asset never change, so this container keeps what
// it read (never publicName, which can change, and never a miss, which a creation can end).
const CACHE_MAX = 10_000;
const recordCache = new Map<string, store.WalletRecord>();

// Only payment accounts: the service's own address (lib/open-payments/identity.ts) takes no payments.
export async function findWalletRecordByUrl(url: string): Promise<store.WalletRecord | undefined> {
  const address = canonicalOrUndefined(url, config.WALLET_ADDRESS_URL);
  if (!address) return undefined;
  const cached = recordCache.get(address);
  if (cached) return cached;
  const found = await store.findWalletAddressByUrl(address);
  const record = found?.assetId ? found : undefined;
  if (record) {
    if (recordCache.size >= CACHE_MAX) recordCache.delete(recordCache.keys().next().value!);
    recordCache.set(address, { ...record, publicName: null });
  }
  return record;
}

export async function renameWalletAddress(id: string, publicName: string): Promise<WalletAddress> {
  const wallet = await getWalletAddress(id);
  await store.updatePublicName(wallet, publicName);
  return { ...wallet, publicName };
}

export async function addKey(id: string, jwk: Ed25519Jwk): Promise<WalletAddressKey> {
  const wallet = await getWalletAddress(id);
  const key: WalletAddressKey = { walletAddressId: wallet.id, kid: jwk.kid, jwk, createdAt: new Date().toISOString(), revokedAt: null };
  await store.insertKey(wallet.address, key);
  return key;
}

export async function listKeys(id: string): Promise<WalletAddressKey[]> {
  const wallet = await getWalletAddress(id);
  return (await store.findWithKeys(wallet.address)).keys;
}

export async function revokeKey(id: string, kid: string): Promise<WalletAddressKey> {
  const wallet = await getWalletAddress(id);
  const key = await store.revokeKey(wallet.address, kid, new Date().toISOString());
  if (!key) throw new DomainError('not_found', 'key_not_found', `Wallet address ${id} has no key with kid ${kid}`);
  return key;
}

// The public view and active keys, for the Open Payments resource server.
export async function publishedWalletAddress(url: string) {
  const wallet = await findWalletAddressByUrl(url);
  if (!wallet) return undefined;
  return {
    id: wallet.address,
    ...(wallet.publicName && { publicName: wallet.publicName }),
    assetCode: wallet.assetCode,
    assetScale: wallet.assetScale,
    authServer: config.AUTH_SERVER_URL,
    resourceServer: resourceServerUrl(),
  };
}

export async function publishedKeys(url: string) {
  const address = canonicalOrUndefined(url, config.WALLET_ADDRESS_URL);
  if (!address) return undefined;
  const { wallet, keys } = await store.findWithKeys(address);
  if (!wallet) return undefined;
  return { keys: keys.filter((k) => !k.revokedAt).map((k) => k.jwk) };
}
