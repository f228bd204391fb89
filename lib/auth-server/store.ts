import { createHash, timingSafeEqual } from 'node:crypto';
import { countUpTo, getOne, type Lookup, type Page, queryNewestFirst, scoped, shardKeys, shardOf } from '../platform/store';
import type { Write } from '../platform/tx';
import type { Node } from '../shared/node';
import { canonicalBase } from '../shared/wallet-address-url';
import type { GrantState, InteractionStep } from './interaction-rules';
import type { AccessItem, ClientIdentity } from './schemas';

// The authorization server's table: a grant under its id, holding the access token it has now (the
// SHA-256 of its value, never the value: a reader of the table cannot use one). One item is the
// whole truth about a token: introspection reads it once, and issuing, rotating and revoking are
// each one conditional write of it, on its state and its current token, so that of two racing
// requests (a rotation and a revocation) the one that commits second sees the first. A grant is
// kept a month past its last token (tokens can be rotated after they expire); a pending one a day.
// The FSP lists them (the table's GrantList index, newest first, spread over a few partitions), by the
// wallet address each is for and its client's wallet address, kept beside it for the filters.
const grantKey = (node: Node, id: string) => ({ pk: scoped(node, `GRANT#${id}`), sk: 'GRANT' });
// Where a grant's events are written (the main table's outbox, in a partition of the grant's own).
export const grantPartition = (node: Node, id: string) => grantKey(node, id).pk;
const LIST = 'GRANTS';
const LIST_SHARDS = 4;
const GRANTS_INDEX = { index: 'GrantList', partitionKey: 'listPk', sortKey: 'listSk' } as const;
const DAY_SECS = 24 * 3600;
const KEPT_SECS = 30 * DAY_SECS; // a revoked, rejected or approved grant
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
  token?: GrantToken; // the access token the grant holds now (approved: none once revoked)
  finish?: { uri: string; nonce: string }; // where the client wants the end user back (its nonce: for the hash)
  createdAt: string;
  walletAddress?: string; // the wallet address of this node it is for (the one its access names), canonical
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
declare module '../platform/tx' {
  interface RefusalsOf {
    'auth-server': typeof INTERACTION_CHANGED | typeof TOKEN_CHANGED | typeof GRANT_RATE_OVER;
  }
}

// An access token as its grant holds it: its hash, the id of its manage URL, when it expires.
export interface GrantToken {
  hash: string;
  managementId: string;
  expiresAt: number; // epoch ms
}

export function putGrant(node: Node, g: GrantRecord): Write {
  const life = g.state === 'pending' ? DAY_SECS : KEPT_SECS;
  const listed = {
    listPk: scoped(node, `${LIST}#${shardOf(g.id, LIST_SHARDS)}`),
    listSk: `${g.createdAt}#${g.id}`,
    ...('walletAddress' in g.client && { clientUrl: canonicalBase(g.client.walletAddress) }), // as the filter compares it
  };
  return {
    Put: {
      TableName: node.tables.auth,
      Item: { ...grantKey(node, g.id), ...g, ...listed, access: JSON.stringify(g.access), client: JSON.stringify(g.client), ttl: epoch(Date.now()) + life },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

// Why a token write was refused: the grant is no longer approved, or holds another token now
// (rotated or revoked meanwhile).
export const TOKEN_CHANGED = 'token_changed';

// The grant's token `was` gives way to `next` (a rotation), on condition that the grant is still
// approved and holds `was`; the grant is kept a month from now.
export const rotateToken = (node: Node, grantId: string, was: string, next: GrantToken): Write => ({
  Update: {
    TableName: node.tables.auth,
    Key: grantKey(node, grantId),
    UpdateExpression: 'SET #token = :next, #ttl = :ttl',
    ConditionExpression: '#state = :approved AND #token.#hash = :was',
    ExpressionAttributeNames: { '#state': 'state', '#token': 'token', '#hash': 'hash', '#ttl': 'ttl' },
    ExpressionAttributeValues: { ':next': next, ':was': was, ':approved': 'approved', ':ttl': epoch(Date.now()) + KEPT_SECS },
  },
  refusal: TOKEN_CHANGED,
});

// The grant's token `was` is revoked: the grant holds none from then on, on condition that it holds `was`.
export const revokeToken = (node: Node, grantId: string, was: string): Write => ({
  Update: {
    TableName: node.tables.auth,
    Key: grantKey(node, grantId),
    UpdateExpression: 'REMOVE #token',
    ConditionExpression: '#token.#hash = :was',
    ExpressionAttributeNames: { '#token': 'token', '#hash': 'hash' },
    ExpressionAttributeValues: { ':was': was },
  },
  refusal: TOKEN_CHANGED,
});

// The grant is revoked, whatever it holds and whatever step it is at (revocation wins every race:
// a rotation or a consent that commits first is undone, one that commits after is refused); its
// token goes with it. Refused only when it was revoked already.
export const revokeGrant = (node: Node, id: string): Write => ({
  Update: {
    TableName: node.tables.auth,
    Key: grantKey(node, id),
    UpdateExpression: 'SET #state = :revoked, #ttl = :ttl REMOVE #token',
    ConditionExpression: 'attribute_exists(pk) AND #state <> :revoked',
    ExpressionAttributeNames: { '#state': 'state', '#ttl': 'ttl', '#token': 'token' },
    ExpressionAttributeValues: { ':revoked': 'revoked', ':ttl': epoch(Date.now()) + KEPT_SECS },
  },
});

// An interaction's steps, each one conditional update of the grant (./interaction-rules.ts says
// which step a state allows; these conditions say the same, so that of two racing requests one
// takes the step and the other is refused with INTERACTION_CHANGED).
const step = (node: Node, id: string, set: string, condition: string, values: Record<string, unknown>, remove?: string): Write => ({
  Update: {
    TableName: node.tables.auth,
    Key: grantKey(node, id),
    UpdateExpression: `SET ${set}${remove ? ` REMOVE ${remove}` : ''}`,
    ConditionExpression: `attribute_exists(pk) AND ${condition}`,
    ExpressionAttributeNames: {
      '#state': 'state',
      ...(set.includes('#ttl') && { '#ttl': 'ttl' }),
      ...(condition.includes('#finish') && { '#finish': 'finish' }),
      ...(set.includes('#token') && { '#token': 'token' }),
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
export function approveInteractive(node: Node, id: string, refHash: string | undefined, token: GrantToken, now: number): Write {
  const byRef = refHash ? 'ixRefHash = :ref' : 'attribute_not_exists(#finish)';
  return step(
    node,
    id,
    '#state = :approved, #token = :token, #ttl = :ttl',
    `#state = :consented AND ${byRef} AND continueBy > :now`,
    {
      ':approved': 'approved',
      ':token': token,
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

// Why a grant request was not counted: its client made `limit` in this minute already.
export const GRANT_RATE_OVER = 'grant_rate_over';

// One more grant request of a client in the minute that starts at `minute` (epoch ms), counted in
// one item kept until the minute is over (its key holds the client's hash: a wallet address may be
// longer than a key); refused when `limit` were counted already.
export const countGrantRequest = (node: Node, client: string, minute: number, limit: number): Write => ({
  Update: {
    TableName: node.tables.auth,
    Key: { pk: scoped(node, `GRANTRATE#${hashOf(client)}#${minute}`), sk: 'RATE' },
    ...countUpTo(limit, epoch(minute) + 120),
  },
  refusal: GRANT_RATE_OVER,
});

// The grant, if it is there: an item past its TTL is gone, whether or not DynamoDB deleted it yet.
export const grantLookup = (node: Node, id: string): Lookup<GrantRecord> => ({
  table: node.tables.auth,
  key: grantKey(node, id),
  read: (item) => (typeof item.ttl === 'number' && item.ttl <= epoch(Date.now()) ? undefined : toGrant(item)),
});
export const findGrant = (node: Node, id: string) => getOne(grantLookup(node, id));

const toGrant = ({ pk, sk, ttl, listPk, listSk, clientUrl, access, client, ...rest }: Record<string, any>) =>
  ({ ...rest, access: JSON.parse(access), client: JSON.parse(client) }) as GrantRecord;

// A page of grants, newest first, those past their TTL left out, and filtered as asked.
export async function listGrants(
  node: Node,
  q: { limit: number; cursor?: string; walletAddress?: string; clientUrl?: string; state?: GrantState },
): Promise<Page<GrantRecord>> {
  const conditions = ['#ttl > :now'];
  const names: Record<string, string> = { '#ttl': 'ttl' };
  const values: Record<string, unknown> = { ':now': epoch(Date.now()) };
  for (const [name, value] of Object.entries({ walletAddress: q.walletAddress, clientUrl: q.clientUrl, state: q.state })) {
    if (value === undefined) continue;
    conditions.push(`#${name} = :${name}`);
    names[`#${name}`] = name;
    values[`:${name}`] = value;
  }
  const page = await queryNewestFirst({
    table: node.tables.auth,
    ...GRANTS_INDEX,
    partitions: shardKeys(node, LIST, LIST_SHARDS),
    limit: q.limit,
    cursor: q.cursor,
    filter: { expression: conditions.join(' AND '), names, values },
  });
  return { items: page.items.map(toGrant), nextCursor: page.nextCursor };
}
