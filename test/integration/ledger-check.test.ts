import { randomUUID } from 'node:crypto';
import { PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestStack } from '../harness/stack';
import { createFlow, ledger, ok, paymentIn, startPaymentsStack, type World } from '../harness/world';

// GET /ledger/check: every asset's accounts summed server-side, after real payments, and what it
// says when the table holds a balance no transfer made.
let s: TestStack;
let w: World;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ s, w, stop } = await startPaymentsStack());
});
afterAll(() => stop());

const check = () => ok(s.admin('GET', '/ledger/check'), 200);

describe('GET /ledger/check', () => {
  it('finds every asset balanced after payments in one asset and across two, a withdrawal and liquidity moves', async () => {
    await ok(s.admin('POST', `/assets/${w.usd.id}/liquidity`, { amount: '5000' }), 200);
    const usd = await createFlow(s, w.alice, w.bob, { value: '1200', assetCode: 'USD' });
    const cross = await createFlow(s, w.alice, w.carlos, { value: '900', assetCode: 'EUR' });
    for (const f of [usd, cross]) await ok(s.admin('POST', `/payments/${f.payment.id}/fund`), 200);
    await Promise.all([usd, cross].map((f) => paymentIn(s, f.payment.id, ['completed'])));
    await ok(s.admin('POST', `/payment-intents/${cross.intent.id}/withdraw`), 200);

    const result = await check();
    expect(result).toMatchObject({ balanced: true, unattributed: [] });
    expect(result.assets.map((a: { assetCode: string }) => a.assetCode).sort()).toEqual(['EUR', 'USD']);
    for (const a of result.assets) expect(a).toMatchObject({ sum: '0', balanced: true });
    // It read what the table holds: every account with a balance, a split account's shards summed.
    const nonZero = [...(await ledger(s)).values()].filter((b) => b !== 0n);
    expect(result.accounts).toBe(nonZero.length);
    expect(result.assets.reduce((n: number, a: { accounts: number }) => n + a.accounts, 0)).toBe(nonZero.length);
  });

  it('shows an asset whose balances do not sum to zero, and a balance whose owner is gone', async () => {
    // Balances no transfer made: one more unit of USD liquidity, and a payment account with no payment.
    await s.dynamo.send(
      new UpdateItemCommand({
        TableName: s.env.MAIN_TABLE,
        Key: { pk: { S: `ACCT#liquidity:${w.usd.id}` }, sk: { S: 'ACCT' } },
        UpdateExpression: 'SET balance = if_not_exists(balance, :zero) + :one',
        ExpressionAttributeValues: { ':zero': { N: '0' }, ':one': { N: '1' } },
      }),
    );
    const orphan = `payment:${randomUUID()}`;
    await s.dynamo.send(new PutItemCommand({ TableName: s.env.MAIN_TABLE, Item: { pk: { S: `ACCT#${orphan}` }, sk: { S: 'ACCT' }, balance: { N: '7' } } }));

    const result = await check();
    expect(result.balanced).toBe(false);
    expect(result.assets.find((a: { assetCode: string }) => a.assetCode === 'USD')).toMatchObject({ sum: '1', balanced: false });
    expect(result.assets.find((a: { assetCode: string }) => a.assetCode === 'EUR')).toMatchObject({ sum: '0', balanced: true });
    expect(result.unattributed).toEqual([{ account: orphan, balance: '7' }]);
  });
});
