import { describe, expect, it } from 'vitest';
import { tableOf } from '../../infra/local/emulators/stream-poller';
import { countAndTrace, countAwsCalls } from '../../lib/platform/aws';

// The local runtime wakes a stream's pollers only after an invocation that wrote to its table
// (infra/local/emulators/stream-poller.ts): which tables a function's calls wrote to.
const writtenBy = async (calls: Array<[string, string, object]>) => {
  const written = new Set<string>();
  await countAwsCalls(
    new Map(),
    async () => {
      for (const [service, operation, input] of calls) await countAndTrace(service, operation, input, async () => ({}));
    },
    undefined,
    written,
  );
  return [...written].sort();
};

describe('the tables an invocation wrote to', () => {
  it("names a transaction's written tables (not its condition checks'), a batch write's, and a lone write's; no read's", async () => {
    const transaction = { TransactItems: [{ Put: { TableName: 'main' } }, { ConditionCheck: { TableName: 'checked' } }, { Delete: { TableName: 'other' } }] };
    expect(await writtenBy([['DynamoDB', 'TransactWriteItems', transaction]])).toEqual(['main', 'other']);
    expect(await writtenBy([['DynamoDB', 'BatchWriteItem', { RequestItems: { a: [], b: [] } }]])).toEqual(['a', 'b']);
    expect(await writtenBy([['DynamoDB', 'UpdateItem', { TableName: 'webhooks' }]])).toEqual(['webhooks']);
    expect(
      await writtenBy([
        ['DynamoDB', 'GetItem', { TableName: 'main' }],
        ['DynamoDB', 'Query', { TableName: 'main' }],
        ['SQS', 'SendMessage', { QueueUrl: 'q' }],
      ]),
    ).toEqual([]);
  });

  it("reads a stream's table from its ARN", () => {
    expect(tableOf('arn:aws:dynamodb:ddblocal:000000000000:table/payment-service-local-main/stream/2026-11-30T03:00:00.000')).toBe(
      'payment-service-local-main',
    );
  });
});
