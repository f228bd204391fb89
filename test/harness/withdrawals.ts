import { expect } from 'vitest';
import type { TestStack } from './stack';
import { ledger, ok, sum } from './world';

// The two-phase withdrawal tests' steps, through the Admin API (liquidity-withdrawal*.test.ts).
export const liquidityOf = async (s: TestStack, path: string) => (await ok(s.admin('GET', path), 200)).liquidity.value as string;

export const hold = (s: TestStack, path: string, amount: string, headers?: Record<string, string>) =>
  ok(s.admin('POST', `${path}/liquidity-withdrawals`, { amount, twoPhase: true }, headers), 200);

export const withdrawal = (s: TestStack, id: string) => ok(s.admin('GET', `/liquidity-withdrawals/${id}`), 200);

// Double entry, read from the table and as the ledger check (every asset's accounts) sees it.
export async function expectBalanced(s: TestStack) {
  expect(sum(await ledger(s))).toBe(0n);
  expect((await ok(s.admin('GET', '/ledger/check'), 200)).balanced).toBe(true);
}

// A USD peer with `amount` of liquidity; its path.
let peers = 0;
export async function peerWith(s: TestStack, amount: string) {
  const n = ++peers;
  const peer = await ok(
    s.admin('POST', '/peers', {
      staticIlpAddress: `test.withdrawal-peer-${n}`,
      assetCode: 'USD',
      http: {
        incoming: { authTokens: [`withdrawal-peer-incoming-token-${n}`] },
        outgoing: { authToken: `withdrawal-peer-outgoing-token-${n}`, endpoint: 'http://127.0.0.1:9/ilp' },
      },
    }),
  );
  await ok(s.admin('POST', `/peers/${peer.id}/liquidity`, { amount }), 200);
  return `/peers/${peer.id}`;
}
