import { describe, expect, it } from 'vitest';
import { costPerMillion, PRICES } from '../../bench/cost';
import { parseStat, treeMs } from '../../bench/procs';
import { addUsage, noUsage, storageObserver, usageOf } from '../../infra/local/emulators/usage';

// The bench's accounting (bench/procs.ts, bench/cost.ts, infra/local/emulators/usage.ts): its
// pure parts, on inputs shaped as /proc and DynamoDB give them.
describe('storage work of a DynamoDB call', () => {
  it('counts a transaction: every item it names, its condition checks, its conditions, the units reported per table', () => {
    const input = {
      TransactItems: [
        { Put: { TableName: 'main', ConditionExpression: 'attribute_not_exists(pk)' } },
        { Update: { TableName: 'main' } },
        { ConditionCheck: { TableName: 'main', ConditionExpression: '#s = :active' } },
        { Delete: { TableName: 'other', ConditionExpression: 'attribute_exists(pk)' } },
      ],
    };
    const output = {
      ConsumedCapacity: [
        { TableName: 'main', CapacityUnits: 8, WriteCapacityUnits: 8 },
        { TableName: 'other', CapacityUnits: 2 },
      ],
    };
    expect(usageOf('TransactWriteItems', input, output)).toEqual({ items: 4, checks: 1, conditions: 3, rcu: 0, wcu: 10, messages: 0, events: 0 });
  });

  it('counts a read as read units and a plain write as write units, and a failed call (no output) as its items only', () => {
    expect(usageOf('GetItem', {}, { ConsumedCapacity: { CapacityUnits: 1 } })).toMatchObject({ items: 0, rcu: 1, wcu: 0 });
    expect(usageOf('BatchGetItem', {}, { ConsumedCapacity: [{ CapacityUnits: 1.5 }, { CapacityUnits: 0.5 }] })).toMatchObject({ rcu: 2 });
    expect(usageOf('UpdateItem', { ConditionExpression: 'x' }, { ConsumedCapacity: { CapacityUnits: 3 } })).toMatchObject({ items: 1, conditions: 1, wcu: 3 });
    expect(usageOf('BatchWriteItem', { RequestItems: { a: [1, 2], b: [3] } }, undefined)).toMatchObject({ items: 3, wcu: 0 });
  });

  it('asks DynamoDB for the units, leaves other calls as they are, and counts messages and events sent', () => {
    const usage = noUsage();
    const observe = storageObserver(usage);
    const get = observe('DynamoDB', 'GetItem', { TableName: 't' });
    expect(get.input).toEqual({ TableName: 't', ReturnConsumedCapacity: 'TOTAL' });
    get.seen({ ConsumedCapacity: { CapacityUnits: 0.5 } });
    const send = observe('SQS', 'SendMessageBatch', { Entries: [{}, {}] });
    expect(send.input).toEqual({ Entries: [{}, {}] });
    observe('SQS', 'SendMessage', {});
    observe('EventBridge', 'PutEvents', { Entries: [{}, {}, {}] });
    expect(usage).toMatchObject({ rcu: 0.5, messages: 3, events: 3 });
    expect(addUsage(noUsage(), usage)).toEqual(usage);
  });
});

describe('CPU from /proc', () => {
  // /proc/<pid>/stat: pid (comm) state ppid ... utime(14) stime(15) cutime(16) cstime(17) ...
  const stat = (pid: number, comm: string, ppid: number, utime: number, stime: number, cutime = 0, cstime = 0) =>
    `${pid} (${comm}) S ${ppid} 1 1 0 -1 4194560 100 0 0 0 ${utime} ${stime} ${cutime} ${cstime} 20 0 4 0 100 1000 200`;

  it('reads utime and stime in ticks of 10 ms, whatever the command name holds', () => {
    expect(parseStat(stat(42, 'node (x) y', 7, 12, 3, 5, 1))).toEqual({ pid: 42, ppid: 7, ms: 150, childrenMs: 60 });
  });

  it("adds a process's live descendants and the children it reaped", () => {
    const all = [
      stat(1, 'init', 0, 999, 0),
      stat(10, 'postgres', 1, 10, 5, 20, 0),
      stat(11, 'postgres: conn', 10, 3, 1),
      stat(12, 'postgres: w', 11, 1, 0),
    ].map(parseStat);
    expect(treeMs(10, all)).toBe((15 + 20 + 4 + 1) * 10);
    expect(treeMs(99, all)).toBe(0);
  });
});

describe('the modelled AWS bill', () => {
  it('prices each item per million operations at list prices', () => {
    const usd = costPerMillion({
      api: 3,
      invocations: { a: 3, webhooksDeliver: 2 },
      cpuMs: 0,
      awsCalls: 0,
      wcu: 10,
      rcu: 4,
      sqsCalls: 1,
      sqsBatches: 2,
      events: 2,
    });
    expect(usd.dynamodb).toBeCloseTo((10 * PRICES.dynamoWru + 4 * PRICES.dynamoRru) * 1e6);
    expect(usd.sqs).toBeCloseTo((1 + 2 + 4) * PRICES.sqsRequest * 1e6);
    expect(usd.apigateway).toBeCloseTo(3 * 3.5);
    expect(usd.total).toBeCloseTo(usd.lambda + usd.dynamodb + usd.sqs + usd.eventbridge + usd.apigateway);
    expect(usd.lambda).toBeGreaterThan(5 * PRICES.lambdaRequest * 1e6); // the webhooks' wait on the FSP is billed
  });
});
