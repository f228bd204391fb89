import { createHash, timingSafeEqual } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db';
import type { Node } from '../node';
import type { Write } from '../tx';
import type { GrantState, InteractionStep } from './interaction-rules';
import type { AccessItem, ClientIdentity } from './schemas';

// The authorization server's table: a grant under its id, an access token under the SHA-256 of its
// value (a token is never stored as such: a reader of the table cannot use one). A grant names the
// token it holds now, so that revoking the grant revokes the token in the same transaction, and
// introspection needs one read. Tokens are kept a month past creation (they can be rotated after
// they expire); a pending grant a day, a revoked one a month.
const grantKey = (id: string) => ({ pk: `GRANT#${id}`, sk: 'GRANT' });
const tokenKey = (hash: string) => ({ pk: `TOKEN#${hash}`, sk: 'TOKEN' });
const DAY_SECS = 24 * 3600;
const KEPT_SECS = 30 * DAY_SECS; // a revoked, rejected or approved grant, a token
const epoch = (ms: number) => Math.floor(ms / 1000);

export const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');
// Two hashOf values compared in constant time (equal lengths: timingSafeEqual throws otherwise).
export const sameHash = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export type { GrantState };

export interface GrantRecord {
  id: string;
  state: GrantState;
  access: AccessItem[];
  client: ClientIdentity;
  continueTokenHash: string;
  tokenHash?: string; // the access token the grant holds now
  finish?: { uri: string; nonce: string }; // where the client wants the end user back (its nonce: for the hash)
  createdAt: string;
  // An interactive grant's interaction (./interaction-rules.ts); the interaction's id is the grant's.
  ixStep?: InteractionStep;
  ixNonceHash?: string; // SHA-256 of the server's nonce, the start and IdP URLs' second segment
  ixSessionHash?: string; // SHA-256 of the session cookie of the browser that started last
  ixRefHash?: string; // SHA-256 of the interact_ref, from finish until the token is issued
  ixExpiresAt?: number; // epoch ms
  continueBy?: number; // epoch ms: the interact_ref is good until then
  lastContinuedAt?: number; // epoch ms: creation, then each poll
  clientName?: string; // what the client's wallet address published, for the consent page
  clientUri?: string;
}

// Why a step of an interaction was refused: its grant moved on meanwhile (another request took
// the step, or it expired).
export const INTERACTION_CHANGED = 'interaction_changed';

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
  const life = g.state === 'pending' ? DAY_SECS : KEPT_SECS;
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
      Item: { ...tokenKey(t.hash), ...t, access: JSON.stringify(t.access), client: JSON.stringify(t.client), ttl: epoch(Date.now()) + KEPT_SECS },
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
      ExpressionAttributeValues: { ':revoked': 'revoked', ':was': g.state, ':ttl': epoch(Date.now()) + KEPT_SECS },
    },
  };
}

// An interaction's steps, each one conditional update of the grant (./interaction-rules.ts says
// which step a state allows; these conditions say the same, so that of two racing requests one
// takes the step and the other is refused with INTERACTION_CHANGED).
const step = (node: Node, id: string, set: string, condition: string, values: Record<string, unknown>, remove?: string): Write => ({
  Update: {
    TableName: node.tables.auth,
    Key: grantKey(id),
    UpdateExpression: `SET ${set}${remove ? ` REMOVE ${remove}` : ''}`,
    ConditionExpression: `attribute_exists(pk) AND ${condition}`,
    ExpressionAttributeNames: {
      '#state': 'state',
      ...(set.includes('#ttl') && { '#ttl': 'ttl' }),
      ...(condition.includes('#finish') && { '#finish': 'finish' }),
    },
    ExpressionAttributeValues: values,
  },
  refusal: INTERACTION_CHANGED,
});

// The user's browser reached the start URL (again): it alone may finish.
export const startInteraction = (node: Node, id: string, sessionHash: string, now: number): Write =>
  step(node, id, 'ixStep = :started, ixSessionHash = :session', '#state = :pending AND ixStep IN (:created, :started) AND ixExpiresAt > :now', {
    ':started': 'started',
    ':created': 'created',
    ':session': sessionHash,
    ':pending': 'pending',
    ':now': now,
  });

// The IdP's choice, once, after the start.
export const decideInteraction = (node: Node, id: string, choice: 'accepted' | 'rejected', now: number): Write =>
  step(node, id, 'ixStep = :choice, decidedAt = :now', '#state = :pending AND ixStep = :started AND ixExpiresAt > :now', {
    ':choice': choice,
    ':started': 'started',
    ':pending': 'pending',
    ':now': now,
  });

// The browser that started last comes back: consented (with the interact_ref's hash, good until
// `continueBy`) or rejected.
export function finishInteraction(
  node: Node,
  id: string,
  f: { accepted: boolean; sessionHash: string; refHash?: string; continueBy?: number },
  now: number,
): Write {
  const condition = '#state = :pending AND ixStep = :decided AND ixSessionHash = :session AND ixExpiresAt > :now';
  const common = { ':pending': 'pending', ':session': f.sessionHash, ':now': now, ':finished': 'finished' };
  return f.accepted
    ? step(node, id, '#state = :consented, ixStep = :finished, ixRefHash = :ref, continueBy = :by', condition, {
        ...common,
        ':decided': 'accepted',
        ':consented': 'consented',
        ':ref': f.refHash,
        ':by': f.continueBy,
      })
    : step(node, id, '#state = :rejected, ixStep = :finished, #ttl = :ttl', condition, {
        ...common,
        ':decided': 'rejected',
        ':rejected': 'rejected',
        ':ttl': epoch(now) + KEPT_SECS,
      });
}

// The access token issued for a consented grant: for its interact_ref (`refHash`), or, for a grant
// without a finish URI, on a poll. The reference is used up.
export function approveInteractive(node: Node, id: string, refHash: string | undefined, tokenHash: string, now: number): Write {
  const byRef = refHash ? 'ixRefHash = :ref' : 'attribute_not_exists(#finish)';
  return step(
    node,
    id,
    '#state = :approved, tokenHash = :token, #ttl = :ttl',
    `#state = :consented AND ${byRef} AND continueBy > :now`,
    {
      ':approved': 'approved',
      ':token': tokenHash,
      ':ttl': epoch(now) + KEPT_SECS,
      ':consented': 'consented',
      ':now': now,
      ...(refHash && { ':ref': refHash }),
    },
    'ixRefHash',
  );
}

// A poll of a pending grant, no sooner than `waitMs` after the last.
export const pollGrant = (node: Node, id: string, waitMs: number, now: number): Write =>
  step(node, id, 'lastContinuedAt = :now', '#state = :pending AND lastContinuedAt <= :since', { ':pending': 'pending', ':now': now, ':since': now - waitMs });

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
