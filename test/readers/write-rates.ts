import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';

// What DynamoDB wrote, item by item, while a test ran: read from the table's own stream (the wire
// protocol, as Lambda's event source does), so it counts the writes that happened, not the ones
// the code meant. Each record is timed when it is read, every POLL_MS: DynamoDB Local dates stream
// records to the minute only. An item's writes also write its index entries; a Lists entry lives
// in the partition its listPk names, so those partitions are counted too (their writes share one
// partition's capacity in the index, as an item's share its own), and a Lists2 entry in its
// list2Pk's: the ledger's transfer history is in both, where each entry is new but every transfer
// of an account writes one.
const POLL_MS = 100;

export interface WriteRates {
  // item ("pk | sk") or index partition ("Lists: <listPk>", "Lists2: <list2Pk>") -> its
  // writes, and the most in one second
  writes: Map<string, { total: number; peakPerSecond: number }>;
  seconds: number;
}

export async function recordWrites(dynamo: DynamoDBClient, table: string): Promise<{ stop(): Promise<WriteRates> }> {
  const endpoint = await dynamo.config.endpoint?.();
  const streams = new DynamoDBStreamsClient({
    region: await dynamo.config.region(),
    credentials: await dynamo.config.credentials(),
    ...(endpoint && { endpoint: `${endpoint.protocol}//${endpoint.hostname}:${endpoint.port}` }),
  });
  const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: table }));
  const StreamArn = Table?.LatestStreamArn;
  if (!StreamArn) throw new Error(`${table} has no stream`);
  const started = Date.now();
  const bySecond = new Map<string, Map<number, number>>();
  const count = (key: string, second: number) => {
    const seconds = bySecond.get(key) ?? new Map<number, number>();
    seconds.set(second, (seconds.get(second) ?? 0) + 1);
    bySecond.set(key, seconds);
  };
  // Shards open now are read from their end; shards that open later, from their start.
  const iterators = new Map<string, string | undefined>();
  const follow = async (from: 'LATEST' | 'TRIM_HORIZON') => {
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn }));
    for (const shard of StreamDescription?.Shards ?? []) {
      if (iterators.has(shard.ShardId!)) continue;
      const { ShardIterator } = await streams.send(new GetShardIteratorCommand({ StreamArn, ShardId: shard.ShardId!, ShardIteratorType: from }));
      iterators.set(shard.ShardId!, ShardIterator);
    }
  };
  const drain = async () => {
    await follow('TRIM_HORIZON');
    for (const [shard, iterator] of iterators) {
      let next = iterator;
      while (next) {
        const res = await streams.send(new GetRecordsCommand({ ShardIterator: next, Limit: 1000 }));
        const second = Math.floor((Date.now() - started) / 1000);
        for (const r of res.Records ?? []) {
          const image = r.dynamodb?.NewImage ?? r.dynamodb?.Keys;
          const keys = r.dynamodb?.Keys;
          if (!keys) continue;
          count(`${keys.pk?.S} | ${keys.sk?.S}`, second);
          if (image?.listPk?.S) count(`Lists: ${image.listPk.S}`, second);
          if (image?.list2Pk?.S) count(`Lists2: ${image.list2Pk.S}`, second);
        }
        next = res.NextShardIterator;
        if (!res.Records?.length) break;
      }
      iterators.set(shard, next);
    }
  };
  await follow('LATEST');
  let polling = true;
  const loop = (async () => {
    while (polling) {
      await drain();
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  })();
  return {
    async stop() {
      polling = false;
      await loop;
      await drain();
      streams.destroy();
      const writes = new Map<string, { total: number; peakPerSecond: number }>();
      for (const [key, seconds] of bySecond) {
        const counts = [...seconds.values()];
        writes.set(key, { total: counts.reduce((a, b) => a + b, 0), peakPerSecond: Math.max(...counts) });
      }
      return { writes, seconds: (Date.now() - started) / 1000 };
    },
  };
}

// The `n` items (of those `which` keeps) that took the most writes, most first.
export const hottest = (rates: WriteRates, n: number, which: (key: string) => boolean = () => true) =>
  [...rates.writes]
    .filter(([key]) => which(key))
    .sort((a, b) => b[1].total - a[1].total)
    .slice(0, n);
