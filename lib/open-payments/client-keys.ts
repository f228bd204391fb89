import type { JWK } from '@interledger/http-signature-utils';
import { logger } from '../log';

// The keys an Open Payments client publishes at <its wallet address>/jwks.json, fetched when a
// signature must be checked and kept briefly: a key the client stops listing (revoked) stops
// working within CACHE_SECS. An unknown keyid is fetched afresh (at most once a second), so that a
// newly registered key works at once.
const CACHE_SECS = 30;
const REFETCH_UNKNOWN_MS = 1000;
const FETCH_TIMEOUT_MS = 5000;
const MAX_ENTRIES = 1000;

interface Entry {
  keys: JWK[];
  at: number;
}
const cache = new Map<string, Entry>();

const isEd25519Jwk = (k: any): k is JWK =>
  k && typeof k.kid === 'string' && k.kty === 'OKP' && k.crv === 'Ed25519' && k.alg === 'EdDSA' && typeof k.x === 'string' && /^[A-Za-z0-9_-]+$/.test(k.x);

async function fetchKeys(walletAddress: string): Promise<JWK[]> {
  try {
    const res = await fetch(`${walletAddress.replace(/\/+$/, '')}/jwks.json`, {
      headers: { accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
    if (!res.ok) return [];
    const body = (await res.json()) as { keys?: unknown };
    return Array.isArray(body.keys) ? body.keys.filter(isEd25519Jwk) : [];
  } catch (error) {
    logger.warn('Could not fetch a client key set', { walletAddress, error: (error as Error).message });
    return [];
  }
}

export async function clientKey(walletAddress: string, keyId: string): Promise<JWK | undefined> {
  const now = Date.now();
  let entry = cache.get(walletAddress);
  const stale = !entry || now - entry.at > CACHE_SECS * 1000;
  const unknown = entry && !entry.keys.some((k) => k.kid === keyId) && now - entry.at > REFETCH_UNKNOWN_MS;
  if (stale || unknown) {
    entry = { keys: await fetchKeys(walletAddress), at: now };
    if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
    cache.set(walletAddress, entry);
  }
  return entry!.keys.find((k) => k.kid === keyId);
}
