import { describe, expect, it } from 'vitest';
import { signedRoutes } from '../../lib/api/routes';
import { createdId } from '../../lib/audit';

describe('the audit trail', () => {
  // An operator's action is audited in the transaction of its change only where every write of
  // its route goes through lib/platform/tx commit, which the route table says by `transactional`.
  it('rides in the transaction of every route that writes', () => {
    expect(signedRoutes.filter((r) => r.method !== 'get' && !r.transactional).map((r) => r.id)).toEqual([]);
  });

  it("names a create's resource by the record put under its own id, not by a lookup item beside it", () => {
    const id = '0b6e5c1a-7d2f-4c55-9e1a-2b3c4d5e6f70';
    const asset = { id, code: 'USD' };
    const writes = [
      { Put: { TableName: 't', Item: { pk: 'T#x#ASSETCODE#USD', sk: 'ASSET', ...asset } } },
      { Update: { TableName: 't', Key: { pk: 'COUNT' }, UpdateExpression: 'ADD n :one' } },
      { Put: { TableName: 't', Item: { pk: `T#x#ASSET#${id}`, sk: 'ASSET', ...asset } } },
    ];
    expect(createdId(writes)).toBe(id);
    expect(createdId(writes.slice(0, 2))).toBeUndefined();
  });
});
