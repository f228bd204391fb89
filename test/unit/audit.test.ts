import { describe, expect, it } from 'vitest';
import { signedRoutes } from '../../lib/api/routes';

describe('the audit trail', () => {
  // A change is audited by the author its commit stamps on it (lib/platform/tx), and a commit
  // knows an Admin request's author only where every write of its route goes through commit,
  // which the route table says by `transactional`.
  it('is stamped on every write of every route that writes', () => {
    expect(signedRoutes.filter((r) => r.method !== 'get' && !r.transactional).map((r) => r.id)).toEqual([]);
  });
});
