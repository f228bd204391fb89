import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../platform/db';
import { getAll, LISTS, type Page, queryAll, queryNewestFirst } from '../platform/store';
import type { Write } from '../platform/tx';
import type { Node } from '../shared/node';
import { pathsOf } from './rules';
import type { TenantRecord } from './schemas';

// The tenant registry, in the main table under global keys (never scoped(): it is how a tenant
// is found). A tenant's record is listed, newest first, through the Lists index. Its ILP address
// suffix is claimed for good (a deleted tenant's data keeps its addresses). Its wallet address
// prefix is claimed while it is active, and counted on each shorter path of the prefix (`under`),
// so that one transaction refuses a prefix equal to, above or below an active tenant's: a prefix
// takes its own path only when nobody holds it and nobody is under it, and adds itself to each
// shorter path only when nobody holds that one. The operator's wallet addresses are counted on
// their paths too (`addresses`), so that no tenant's prefix is taken over an operator's address, and
// no operator's address is made under an active tenant's prefix, whichever comes first.
const byId = (id: string) => ({ pk: `TENANT#${id}`, sk: 'TENANT' });
const prefixClaim = (prefix: string) => ({ pk: `TENANTPREFIX#${prefix}`, sk: 'TENANT' });
const suffixClaim = (suffix: string) => ({ pk: `TENANTSUFFIX#${suffix}`, sk: 'TENANT' });
const LIST = 'TENANTS'; // few: one partition

export const PREFIX_TAKEN = 'prefix_taken'; // the prefix is an active tenant's, or above one
export const PREFIX_BELOW = 'prefix_below'; // the prefix is below an active tenant's
export const SUFFIX_TAKEN = 'suffix_taken';
const CHANGED = 'tenant_changed';
export const UNDER_TENANT = 'under_tenant'; // an operator's wallet address, under an active tenant's prefix
declare module '../platform/tx' {
  interface RefusalsOf {
    tenants: typeof PREFIX_TAKEN | typeof PREFIX_BELOW | typeof SUFFIX_TAKEN | typeof CHANGED | typeof UNDER_TENANT;
  }
}

const putRecord = (node: Node, t: TenantRecord, condition: { ConditionExpression: string; ExpressionAttributeValues?: Record<string, unknown> }): Write => ({
  refusal: CHANGED,
  Put: { TableName: node.tables.main, Item: { ...byId(t.id), ...t, listPk: LIST, listSk: `${t.createdAt}#${t.id}` }, ...condition },
});
const unchanged = (was: TenantRecord) => ({ ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': was.version } });

// Each shorter path of the prefix counts one more (-1: one fewer) tenant under it.
const countUnder = (node: Node, prefix: string, by: 1 | -1): Write[] =>
  pathsOf(prefix)
    .slice(1)
    .map((path) => ({
      refusal: PREFIX_BELOW,
      Update: {
        TableName: node.tables.main,
        Key: prefixClaim(path),
        UpdateExpression: 'ADD tenantsUnder :by',
        ...(by === 1 && { ConditionExpression: 'attribute_not_exists(tenantId)' }),
        ExpressionAttributeValues: { ':by': by },
      },
    }));

// The items that make a tenant: its record and its claims.
export function insertTenant(node: Node, t: TenantRecord): Write[] {
  return [
    putRecord(node, t, { ConditionExpression: 'attribute_not_exists(pk)' }),
    {
      refusal: PREFIX_TAKEN,
      Update: {
        TableName: node.tables.main,
        Key: prefixClaim(t.walletAddressPrefix),
        UpdateExpression: 'SET tenantId = :id',
        ConditionExpression:
          'attribute_not_exists(tenantId) AND (attribute_not_exists(tenantsUnder) OR tenantsUnder = :none) AND (attribute_not_exists(addresses) OR addresses = :none)',
        ExpressionAttributeValues: { ':id': t.id, ':none': 0 },
      },
    },
    ...countUnder(node, t.walletAddressPrefix, 1),
    {
      refusal: SUFFIX_TAKEN,
      Put: { TableName: node.tables.main, Item: { ...suffixClaim(t.ilpAddressSuffix), tenantId: t.id }, ConditionExpression: 'attribute_not_exists(pk)' },
    },
  ];
}

export const replaceTenant = (node: Node, was: TenantRecord, now: TenantRecord): Write[] => [
  putRecord(node, { ...now, version: was.version + 1 }, unchanged(was)),
];

// The items that mark a tenant deleted: its record, and its prefix given up (its suffix is kept).
export function removeTenant(node: Node, was: TenantRecord, now: TenantRecord): Write[] {
  return [
    ...replaceTenant(node, was, now),
    {
      Update: {
        TableName: node.tables.main,
        Key: prefixClaim(was.walletAddressPrefix),
        UpdateExpression: 'REMOVE tenantId',
        ConditionExpression: 'tenantId = :id',
        ExpressionAttributeValues: { ':id': was.id },
      },
    },
    ...countUnder(node, was.walletAddressPrefix, -1),
  ];
}

const toRecord = ({ pk, sk, listPk, listSk, ...record }: Record<string, any>) => record as TenantRecord;

export async function findTenant(node: Node, id: string): Promise<TenantRecord | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: node.tables.main, Key: byId(id), ConsistentRead: true }));
  return Item && toRecord(Item);
}

// The items that count an operator's new wallet address on each of its paths, refused
// (UNDER_TENANT) when one of them is an active tenant's prefix.
export const countOperatorAddress = (node: Node, address: string): Write[] =>
  pathsOf(address).map((path) => ({
    refusal: UNDER_TENANT,
    Update: {
      TableName: node.tables.main,
      Key: prefixClaim(path),
      UpdateExpression: 'ADD addresses :one',
      ConditionExpression: 'attribute_not_exists(tenantId)',
      ExpressionAttributeValues: { ':one': 1 },
    },
  }));

// Who holds a path, how many tenants' prefixes are under it, and how many of the operator's wallet
// addresses are at or under it, as its claim says (an unclaimed path: nobody, none, none).
export interface PrefixClaim {
  path: string;
  tenantId?: string;
  under: number;
  addresses: number;
}
const toClaim = (c: Record<string, any>): PrefixClaim => ({
  path: c.pk.slice('TENANTPREFIX#'.length),
  tenantId: c.tenantId,
  under: Number(String(c.tenantsUnder ?? 0)),
  addresses: Number(String(c.addresses ?? 0)),
});

export async function prefixClaims(node: Node, paths: string[]): Promise<PrefixClaim[]> {
  return (await getAll(node.tables.main, paths.map(prefixClaim), { ConsistentRead: true })).map(toClaim);
}

export async function findPrefixClaim(node: Node, path: string): Promise<PrefixClaim | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: node.tables.main, Key: prefixClaim(path), ConsistentRead: true }));
  return Item && toClaim(Item);
}

export async function listTenants(node: Node, limit: number, cursor?: string): Promise<Page<TenantRecord>> {
  const page = await queryNewestFirst({ table: node.tables.main, ...LISTS, partitions: [LIST], limit, cursor });
  return { items: page.items.map(toRecord), nextCursor: page.nextCursor };
}

export async function allTenants(node: Node): Promise<TenantRecord[]> {
  const items = await queryAll({
    TableName: node.tables.main,
    IndexName: LISTS.index,
    KeyConditionExpression: 'listPk = :pk',
    ExpressionAttributeValues: { ':pk': LIST },
  });
  return items.map(toRecord);
}
