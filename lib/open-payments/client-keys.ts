import type { JWK } from '@interledger/http-signature-utils';
import { logger } from '../platform/log';
import { boundedFetch } from '../platform/net/fetch';
import type { Node } from '../shared/node';
import { openPaymentsErrors } from './errors';

// The keys an Open Payments client publishes at <its wallet address>/jwks.json, fetched when a
// signature must be checked and kept briefly: a key the client stops listing (revoked) stops
// working within CACHE_SECS. An unknown keyid is fetched afresh (at most once a second), so that a
// newly registered key works at once. The URL is the client's choice: it is fetched bounded (size,
// time, redirects, no internal addresses: lib/platform/net/fetch.ts), and a key set that cannot be read is
// remembered like one that can, so that a client cannot make this server fetch at every request.
const CACHE_SECS = 30;
const REFETCH_UNKNOWN_MS = 1000;
const MAX_ENTRIES = 1000;

interface Entry {
  keys: JWK[];
  at: number;
  failure?: string; // why the key set could not be read
}
const cache = new Map<string, Entry>();

// Keeps `value` under `key`, the oldest entry making room past MAX_ENTRIES.
function keep<T>(map: Map<string, T>, key: string, value: T): T {
  if (map.size >= MAX_ENTRIES && !map.has(key)) map.delete(map.keys().next().value!);
  map.set(key, value);
  return value;
}

const isEd25519Jwk = (k: any): k is JWK =>
  k && typeof k.kid === 'string' && k.kty === 'OKP' && k.crv === 'Ed25519' && k.alg === 'EdDSA' && typeof k.x === 'string' && /^[A-Za-z0-9_-]+$/.test(k.x);

async function fetchKeys(node: Node, walletAddress: string): Promise<Pick<Entry, 'keys' | 'failure'>> {
  const url = `${walletAddress.replace(/\/+$/, '')}/jwks.json`;
  try {
    const res = await boundedFetch(url, { headers: { accept: 'application/json' } }, { allowPrivate: node.allowPrivateFetch });
    if (!res.ok) return { keys: [], failure: `${url} answered ${res.status}` };
    const body = (await res.json()) as { keys?: unknown };
    return { keys: Array.isArray(body?.keys) ? body.keys.filter(isEd25519Jwk) : [] };
  } catch (error) {
    logger.warn('Could not fetch a client key set', { walletAddress, error: (error as Error).message });
    return { keys: [], failure: (error as Error).message };
  }
}

export async function clientKey(node: Node, walletAddress: string, keyId: string): Promise<JWK | undefined> {
  const now = Date.now();
  let entry = cache.get(walletAddress);
  const stale = !entry || now - entry.at > CACHE_SECS * 1000;
  const unknown = entry && !entry.keys.some((k) => k.kid === keyId) && now - entry.at > REFETCH_UNKNOWN_MS;
  if (stale || unknown) {
    entry = keep(cache, walletAddress, { ...(await fetchKeys(node, walletAddress)), at: now });
  }
  const key = entry!.keys.find((k) => k.kid === keyId);
  // The client cannot be verified: say why (GNAP's invalid_client).
  if (!key && entry!.failure) throw openPaymentsErrors.invalidClient(`The client's key set could not be read: ${entry!.failure}`);
  return key;
}

// What a client's wallet address publishes to show the user (its `publicName`), for the consent
// page of an interactive grant; kept as briefly as its keys. Undefined when it publishes none or
// cannot be read.
const displays = new Map<string, { name?: string; at: number }>();

export async function clientDisplayName(node: Node, walletAddress: string): Promise<string | undefined> {
  const now = Date.now();
  const kept = displays.get(walletAddress);
  if (kept && now - kept.at <= CACHE_SECS * 1000) return kept.name;
  let name: string | undefined;
  try {
    const res = await boundedFetch(walletAddress, { headers: { accept: 'application/json' } }, { allowPrivate: node.allowPrivateFetch });
    const body = res.ok ? ((await res.json()) as { publicName?: unknown }) : undefined;
    if (typeof body?.publicName === 'string' && body.publicName.trim()) name = body.publicName.trim().slice(0, 200);
  } catch (error) {
    logger.warn('Could not fetch a client wallet address', { walletAddress, error: (error as Error).message });
  }
  return keep(displays, walletAddress, { name, at: now }).name;
}
