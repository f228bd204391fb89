import { createHash } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db';
import type { Node } from '../node';
import type { Write } from '../tx';
import type { AccessItem, ClientIdentity } from './schemas';

// The authorization server's table: a grant under its id, an access token under the SHA-256 of its
// value (a token is never stored as such: a reader of the table cannot use one). A grant names the
// token it holds now, so that revoking the grant revokes the token in the same transaction, and
// introspection needs one read. Tokens are kept a month past creation (they can be rotated after
// they expire); a pending grant a day, a revoked one a month.
const grantKey = (id: string) => ({ pk: `GRANT#${id}`, sk: 'GRANT' });
const tokenKey = (hash: string) => ({ pk: `TOKEN#${hash}`, sk: 'TOKEN' });
const DAY_SECS = 24 * 3600;
const epoch = (ms: number) => Math.floor(ms / 1000);

export const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

export type GrantState = 'approved' | 'pending' | 'revoked';

export interface GrantRecord {
  id: string;
  state: GrantState;
  access: AccessItem[];
  client: ClientIdentity;
  continueTokenHash: string;
  tokenHash?: string; // the access token the grant holds now
  finish?: { uri: string; nonce: string }; // pending: where the client wants the end user back
  createdAt: string;
}

export interface TokenRecord {
  hash: string;
  grantId: string;
  managementId: string;
  access: AccessItem[];
  client: ClientIdentity;
  expiresAt: number; // epoch ms
  revoked: boolean;
}

export function putGrant(node: Node, g: GrantRecord): Write {
  const life = g.state === 'pending' ? DAY_SECS : 30 * DAY_SECS;
  return {
    Put: {
      TableName: node.tables.auth,
      Item: { ...grantKey(g.id), ...g, access: JSON.stringify(g.access), client: JSON.stringify(g.client), ttl: epoch(Date.now()) + life },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

export function putToken(node: Node, t: TokenRecord): Write {
  return {
    Put: {
      TableName: node.tables.auth,
      Item: { ...tokenKey(t.hash), ...t, access: JSON.stringify(t.access), client: JSON.stringify(t.client), ttl: epoch(Date.now()) + 30 * DAY_SECS },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

// Revokes a token; with `onlyIfActive`, the condition fails if it was revoked already.
export function revokeToken(node: Node, hash: string, onlyIfActive = true): Write {
  return {
    Update: {
      TableName: node.tables.auth,
      Key: tokenKey(hash),
      UpdateExpression: 'SET revoked = :yes',
      ConditionExpression: onlyIfActive ? 'attribute_exists(pk) AND revoked = :no' : 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':yes': true, ...(onlyIfActive && { ':no': false }) },
    },
  };
}

// Points an approved grant at its new token, on condition that it still holds `was`.
export function replaceGrantToken(node: Node, grantId: string, was: string, now: string): Write {
  return {
    Update: {
      TableName: node.tables.auth,
      Key: grantKey(grantId),
      UpdateExpression: 'SET tokenHash = :now',
      ConditionExpression: '#state = :approved AND tokenHash = :was',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':now': now, ':was': was, ':approved': 'approved' },
    },
  };
}

export function revokeGrant(node: Node, g: GrantRecord): Write {
  return {
    Update: {
      TableName: node.tables.auth,
      Key: grantKey(g.id),
      UpdateExpression: 'SET #state = :revoked, #ttl = :ttl',
      ConditionExpression: '#state = :was',
      ExpressionAttributeNames: { '#state': 'state', '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':revoked': 'revoked', ':was': g.state, ':ttl': epoch(Date.now()) + 30 * DAY_SECS },
    },
  };
}

const parse = <T>(item: Record<string, any>, fields: string[]): T => {
  const { pk, sk, ttl, ...rest } = item;
  for (const f of fields) rest[f] = JSON.parse(rest[f]);
  return rest as T;
};

export async function findGrant(node: Node, id: string): Promise<GrantRecord | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: node.tables.auth, Key: grantKey(id), ConsistentRead: true }));
  return Item && parse<GrantRecord>(Item, ['access', 'client']);
}

export async function findToken(node: Node, value: string): Promise<TokenRecord | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: node.tables.auth, Key: tokenKey(hashOf(value)), ConsistentRead: true }));
  return Item && parse<TokenRecord>(Item, ['access', 'client']);
}
