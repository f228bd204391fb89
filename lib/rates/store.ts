import { BatchGetCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../platform/db';
import { queryAll, scoped, shardKeys, shardOf } from '../platform/store';
import type { Write } from '../platform/tx';
import type { Node } from '../shared/node';

// The rates table. A pushed rate is one item per scope and pair; a pull is one item per scope and
// base holding every rate the FSP listed. Pulled items are also listed in a registry (spread over a
// few partitions), so the refresher finds them with queries instead of a scan. `ttl` (epoch seconds) lets
// DynamoDB delete what expired, but reads compare expiresAt themselves.
export interface Scope {
  peerId?: string;
}

export interface StoredRate {
  rate: number;
  expiresAt: string;
}

export interface PulledRates {
  base: string;
  peerId?: string;
  rates: Record<string, number>;
  expiresAt: string;
}

export interface RegistryEntry {
  base: string;
  peerId?: string;
  expiresAt: string;
}

const scopeKey = (s: Scope) => (s.peerId === undefined ? 'fsp' : `peer:${s.peerId}`);
const pushedKey = (node: Node, s: Scope, source: string, destination: string) => ({ pk: scoped(node, `PUSHED#${scopeKey(s)}#${source}`), sk: destination });
const pulledKey = (node: Node, s: Scope, base: string) => ({ pk: scoped(node, `PULLED#${scopeKey(s)}#${base}`), sk: 'RATES' });
const REGISTRY = 'PULLED_REGISTRY';
const REGISTRY_SHARDS = 4;
const registryKey = (node: Node, s: Scope, base: string) => {
  const sk = `${scopeKey(s)}#${base}`;
  return { pk: scoped(node, `${REGISTRY}#${shardOf(sk, REGISTRY_SHARDS)}`), sk };
};
const epoch = (iso: string) => Math.ceil(Date.parse(iso) / 1000);
// Registry entries outlive their rates by a day, so a base whose refresh keeps failing is retried
// for a day and then forgotten.
const REGISTRY_GRACE_SECS = 24 * 3600;

export function pushedRate(node: Node, s: Scope, source: string, destination: string, r: StoredRate): Write {
  return { Put: { TableName: node.tables.rates, Item: { ...pushedKey(node, s, source, destination), ...r, peerId: s.peerId, ttl: epoch(r.expiresAt) } } };
}

// The pushed rate for a pair and the pulled rates of its base, in one round trip.
export async function findRates(node: Node, s: Scope, source: string, destination: string): Promise<{ pushed?: StoredRate; pulled?: PulledRates }> {
  const pushed = pushedKey(node, s, source, destination);
  const pulled = pulledKey(node, s, source);
  const res = await db().send(new BatchGetCommand({ RequestItems: { [node.tables.rates]: { Keys: [pushed, pulled], ConsistentRead: true } } }));
  const items = res.Responses?.[node.tables.rates] ?? [];
  // Unprocessed keys only happen under throttling; read them one more time rather than fail.
  const unprocessed = res.UnprocessedKeys?.[node.tables.rates]?.Keys ?? [];
  if (unprocessed.length) {
    const retry = await db().send(new BatchGetCommand({ RequestItems: { [node.tables.rates]: { Keys: unprocessed, ConsistentRead: true } } }));
    items.push(...(retry.Responses?.[node.tables.rates] ?? []));
  }
  const p = items.find((i) => i.pk === pushed.pk && i.sk === pushed.sk);
  const q = items.find((i) => i.pk === pulled.pk);
  return {
    pushed: p && { rate: Number(p.rate), expiresAt: p.expiresAt },
    pulled: q && { base: q.base, peerId: q.peerId, rates: JSON.parse(q.rates), expiresAt: q.expiresAt },
  };
}

export async function savePulled(node: Node, p: PulledRates): Promise<void> {
  const s = { peerId: p.peerId };
  const ttl = epoch(p.expiresAt);
  let requests: Record<string, any>[] = [
    // The FSP's rates as JSON text: any finite number fits, whatever DynamoDB numbers allow.
    { PutRequest: { Item: { ...pulledKey(node, s, p.base), ...p, rates: JSON.stringify(p.rates), ttl } } },
    { PutRequest: { Item: { ...registryKey(node, s, p.base), base: p.base, peerId: p.peerId, expiresAt: p.expiresAt, ttl: ttl + REGISTRY_GRACE_SECS } } },
  ];
  for (let attempt = 0; requests.length; attempt++) {
    if (attempt === 5) throw new Error('DynamoDB left rate writes unprocessed five times');
    const res = await db().send(new BatchWriteCommand({ RequestItems: { [node.tables.rates]: requests } }));
    requests = res.UnprocessedItems?.[node.tables.rates] ?? [];
    if (requests.length) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
  }
}

export async function listPulled(node: Node): Promise<RegistryEntry[]> {
  const shards = await Promise.all(
    shardKeys(node, REGISTRY, REGISTRY_SHARDS).map((pk) =>
      queryAll({ TableName: node.tables.rates, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } }),
    ),
  );
  const items = shards.flat();
  // DynamoDB deletes expired items lazily: skip entries past their own ttl.
  return items.filter((i) => i.ttl * 1000 > Date.now()).map((i) => ({ base: i.base, peerId: i.peerId, expiresAt: i.expiresAt }));
}
