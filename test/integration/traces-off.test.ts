import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { expect, it } from 'vitest';
import { startTestStack } from '../harness/stack';
import { ok } from '../harness/world';

// Tracing off (LOCAL_TRACES=false, here the stack's option): nothing recorded, nothing carried. (A
// file of its own: a process loads the functions once, for the first stack it starts.)
it('records nothing, and writes no trace header into the outbox', async () => {
  const s = await startTestStack({ EXCHANGE_RATES_URL: '' }, { traces: false });
  try {
    await ok(s.admin('POST', '/assets', { code: 'USD', scale: 2 }));
    const bob = await ok(s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/bob`, assetCode: 'USD' }));
    await ok(s.admin('POST', '/payment-intents', { walletAddress: bob.address }));
    expect(s.traces).toBeUndefined();
    const { Items = [] } = await s.dynamo.send(
      new ScanCommand({ TableName: s.env.MAIN_TABLE, FilterExpression: 'begins_with(sk, :out)', ExpressionAttributeValues: { ':out': { S: 'OUT#' } } }),
    );
    expect(Items.map((item) => JSON.parse(item.out.S!)[0].event.type)).toEqual(['payment_intent.created']);
    expect(Items[0].trace).toBeUndefined();
  } finally {
    await s.stop();
  }
});
