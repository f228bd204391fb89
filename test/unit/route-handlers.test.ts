import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { declarationFile, handlerFile, handlerSource, ROOT, staleHandlers } from '../../infra/route-handlers';
import { allRoutes } from '../../lib/api/routes';

// The Admin routes' handlers against their declarations (lib/api/routes): a declared operation's
// handler is as its declaration makes it (npx tsx infra/route-handlers.ts writes it again).
describe("the Admin routes' handlers", () => {
  it('are as their declarations make them, where these name the operation', () => {
    expect(
      staleHandlers().map((r) => `${handlerFile(r)} (${r.id})`),
      'npx tsx infra/route-handlers.ts',
    ).toEqual([]);
  });

  it('call the operation with the node, the path’s fields, the body and the query', () => {
    const source = (id: string) =>
      handlerSource(allRoutes.find((r) => r.id === id)!)!
        .split('\n')
        .at(-2);
    expect(source('getGrant')).toBe('export const handler = adminRoute(routes.getGrant, ({ params, node }) => getGrant(node, params.id));');
    expect(source('revokeWalletAddressKey')).toBe(
      'export const handler = adminRoute(routes.revokeWalletAddressKey, ({ params, node }) => revokeKey(node, params.id, params.kid));',
    );
    expect(source('getPeerReconciliation')).toBe(
      'export const handler = adminRoute(routes.getPeerReconciliation, ({ params, query, node }) => peerReconciliation(node, params.id, query));',
    );
    expect(source('checkLedger')).toBe('export const handler = adminRoute(routes.checkLedger, ({ node }) => checkLedger(node));');
  });

  it('each have a file, and each route is in its tag’s file', () => {
    for (const route of allRoutes) {
      expect(existsSync(join(ROOT, handlerFile(route))), handlerFile(route)).toBe(true);
      expect(existsSync(join(ROOT, declarationFile(route))), declarationFile(route)).toBe(true);
    }
  });
});
