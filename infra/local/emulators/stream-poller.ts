import { randomUUID } from 'node:crypto';
import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  DynamoDBStreamsServiceException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type Shard,
  type StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { DynamoDBBatchResponse } from 'aws-lambda';
import { overJson } from '../../../lib/platform/aws-json';
import type { FunctionDef } from '../start/serverless-config';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './emulators';
import { matches } from './event-pattern';
import { type LambdaRuntime, localFunctionArn } from './lambda';
import { type Refs, resolveIntrinsics } from './provision';
import type { SqsSender } from './sqs';

// The local DynamoDB-Streams-to-Lambda event source mapping, for each function's `stream` event:
// reads the table's stream shard by shard (DescribeStream, GetShardIterator, GetRecords), keeps
// the records that pass the event's filterPatterns, and invokes the function with batches of up
// to batchSize. ReportBatchItemFailures is honoured as Lambda does: the batch is handed back from
// the lowest failed sequence number on; a batch whose invocation throws is handed back whole, or
// halved first with bisectBatchOnFunctionError. Either is retried after a growing pause, up to
// maximumRetryAttempts times; a batch that used them up, or records older than
// maximumRecordAgeInSeconds, go to the event's on-failure destination (a queue) as Lambda's
// on-failure record (the shard and its range of sequence numbers), and the shard goes on.
// Reading resumes where it stopped (the checkpoints outlive a stop), and a read follows every
// invocation that wrote to its table, so a committed outbox item is sent within milliseconds; with
// a batchWindow, once that window has passed since the first was read, as Lambda gathers records.
// Its iterator age goes to the runtime's metrics: from the writes it has not read yet (unreadWrites, below),
// as DynamoDB Local dates stream records to the minute only.
// Between reads of a shard that had nothing new: Lambda reads each shard four times a second. (A
// write by a function wakes the read at once, above; this is for writes from outside the runtime.)
const IDLE_POLL_MS = 250;
const READ_LIMIT = 1000;
const MAX_RETRY_PAUSE_MS = 1000;

// A stream's table, by its ARN ("…:table/<name>/stream/<label>").
export const tableOf = (streamArn: string) => /:table\/([^/]+)\/stream\//.exec(streamArn)?.[1] ?? streamArn;

// "<function>|<shard id>" -> the sequence number of the last record handled
export type Checkpoints = Map<string, string>;

class HandBack extends Error {}

export interface Mapping {
  fn: FunctionDef;
  streamArn: string;
  table: string; // the stream's: only a write to it wakes the mapping
  batchSize: number;
  batchWindowMs: number; // how long Lambda gathers records before it invokes (0: it does not wait)
  startingPosition: 'TRIM_HORIZON' | 'LATEST';
  filters: Record<string, unknown>[];
  partial: boolean;
  retry: RetryPolicy;
  maxAgeSecs: number; // -1: no limit
  onFailure?: string; // the destination queue's URL
}

export function streamMappings(functions: FunctionDef[], refs: Refs): Mapping[] {
  const urlByArn = new Map(Object.values(refs).map((r) => [r.arn, r.ref]));
  return functions.flatMap((fn) =>
    fn.events.flatMap((e) => {
      if (!e.stream || (e.stream.type && e.stream.type !== 'dynamodb')) return [];
      const destination = e.stream.destinations?.onFailure;
      const destinationArn = destination && (resolveIntrinsics(typeof destination === 'string' ? destination : destination.arn, refs) as string);
      if (destinationArn && !urlByArn.has(destinationArn)) throw new Error(`${fn.name}: no local queue for its on-failure destination ${destinationArn}`);
      const streamArn = resolveIntrinsics(e.stream.arn, refs) as string;
      return [
        {
          fn,
          streamArn,
          table: tableOf(streamArn),
          batchSize: Number(e.stream.batchSize ?? 100),
          batchWindowMs: Number(e.stream.batchWindow ?? 0) * 1000,
          startingPosition: e.stream.startingPosition ?? 'TRIM_HORIZON',
          filters: e.stream.filterPatterns ?? [],
          partial: e.stream.functionResponseType === 'ReportBatchItemFailures',
          // Settings from the environment arrive as text: numbers, as Lambda takes them.
          retry: { maxRetries: Number(e.stream.maximumRetryAttempts ?? -1), bisect: e.stream.bisectBatchOnFunctionError === true },
          maxAgeSecs: Number(e.stream.maximumRecordAgeInSeconds ?? -1),
          onFailure: destinationArn && urlByArn.get(destinationArn),
        },
      ];
    }),
  );
}

export interface RetryPolicy {
  maxRetries: number; // -1: until it succeeds
  bisect: boolean;
}

// A shard's batch that failed and is to be tried again: from which record, after how many retries,
// and at most how many records (halved by bisecting).
interface RetryState {
  from: string;
  retries: number;
  limit?: number;
}

// What a failed batch (from sequence number `from`, `size` records) comes to, as Lambda decides:
// halved when its invocation threw and it can be (which uses no retry), tried again, or parked
// once its retries are used up. A failure from another record than the last one starts anew.
export function afterFailure(previous: RetryState | undefined, from: string, size: number, threw: boolean, policy: RetryPolicy): RetryState | 'park' {
  const same = previous?.from === from ? previous : undefined;
  if (threw && policy.bisect && size > 1) return { from, retries: same?.retries ?? 0, limit: Math.ceil(size / 2) };
  const retries = (same?.retries ?? 0) + 1;
  if (policy.maxRetries >= 0 && retries > policy.maxRetries) return 'park';
  return { from, retries, ...(same?.limit && { limit: same.limit }) };
}

// How many records at the head of a batch (oldest first) are older than the mapping takes (by
// their creation time, which DynamoDB Local rounds down to the minute).
export function expiredHead(createdSecs: number[], maxAgeSecs: number, nowSecs: number): number {
  if (maxAgeSecs < 0) return 0;
  const fresh = createdSecs.findIndex((t) => nowSecs - t <= maxAgeSecs);
  return fresh === -1 ? createdSecs.length : fresh;
}

// A record as Lambda delivers it (JSON: the creation time in epoch seconds).
// The streams of DynamoDB Local at `endpoint`, read over the lean JSON sender (the SDK's own stack
// and its schema-driven parsing of every record cost the local run more CPU than the reads). Its
// records are the wire's: their creation time in seconds, as Lambda's event carries it.
export type StreamsReader = Pick<DynamoDBStreamsClient, 'send'>;
export const streamsReader = (endpoint: string): StreamsReader =>
  overJson(
    new DynamoDBStreamsClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint }),
    {
      label: 'DynamoDBStreams',
      signingName: 'dynamodb',
      target: 'DynamoDBStreams_20120810',
      version: '1.0',
      ServiceException: DynamoDBStreamsServiceException,
    },
    [
      [DescribeStreamCommand, 'DescribeStream'],
      [GetShardIteratorCommand, 'GetShardIterator'],
      [GetRecordsCommand, 'GetRecords'],
    ],
  );

// A stream record as Lambda hands it to a function: from the wire (creation time in seconds) or as
// the SDK reads it (a Date: infra/redrive.ts).
type ReadRecord = Omit<_Record, 'dynamodb'> & {
  dynamodb?: Omit<StreamRecord, 'ApproximateCreationDateTime'> & { ApproximateCreationDateTime?: Date | number };
};
export function lambdaRecord(r: ReadRecord, streamArn: string) {
  const { ApproximateCreationDateTime: created, ...dynamodb } = r.dynamodb ?? {};
  const ApproximateCreationDateTime = created instanceof Date ? created.getTime() / 1000 : created;
  return {
    eventID: r.eventID,
    eventName: r.eventName,
    eventVersion: r.eventVersion,
    eventSource: 'aws:dynamodb',
    awsRegion: r.awsRegion,
    dynamodb: { ...dynamodb, ...(ApproximateCreationDateTime && { ApproximateCreationDateTime }) },
    eventSourceARN: streamArn,
  };
}

type LambdaRecord = ReturnType<typeof lambdaRecord>;

// Lambda's on-failure record for a stream batch: where the records are, not the records.
function failureRecord(mapping: Mapping, shardId: string, batch: LambdaRecord[], condition: string, invokes: number) {
  const arrival = (r: LambdaRecord) => new Date((r.dynamodb.ApproximateCreationDateTime ?? 0) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    requestContext: {
      requestId: randomUUID(),
      functionArn: localFunctionArn(mapping.fn),
      condition,
      approximateInvokeCount: invokes,
    },
    responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
    version: '1.0',
    timestamp: new Date().toISOString(),
    DDBStreamBatchInfo: {
      shardId,
      startSequenceNumber: batch[0].dynamodb.SequenceNumber,
      endSequenceNumber: batch.at(-1)!.dynamodb.SequenceNumber,
      approximateArrivalOfFirstRecord: arrival(batch[0]),
      approximateArrivalOfLastRecord: arrival(batch.at(-1)!),
      batchSize: batch.length,
      streamArn: mapping.streamArn,
    },
  };
}

// The invocations that wrote to DynamoDB which a stream mapping may not have read yet: kept by the
// stack, so that they outlive a stop of the mappings (an outage's writes wait all the same). A
// read that started after a write ended and took all there was has read it; the mapping's
// iterator age is then how long ago the oldest write left began (its record is no older).
type UnreadWrites = ReturnType<typeof unreadWrites>;

export function unreadWrites(runtime: LambdaRuntime) {
  const byMapping = new Map<string, Array<{ start: number; end: number }>>();
  const of = (name: string) => byMapping.get(name) ?? byMapping.set(name, []).get(name)!;
  const watched = new Map<string, string>(); // mapping -> its table
  runtime.onInvoked(({ written, startedAt }) => {
    for (const [name, table] of watched) if (written.has(table)) of(name).push({ start: startedAt, end: Date.now() });
  });
  return {
    watch: (mapping: Mapping) => {
      of(mapping.fn.name);
      watched.set(mapping.fn.name, mapping.table);
    },
    caughtUp: (name: string, readStart: number) =>
      byMapping.set(
        name,
        of(name).filter((w) => w.end >= readStart),
      ),
    oldest: (name: string) => of(name).reduce<number | undefined>((t, w) => Math.min(t ?? w.start, w.start), undefined),
  };
}

export function startStreamPoller(
  mapping: Mapping,
  client: StreamsReader,
  sqs: SqsSender,
  runtime: LambdaRuntime,
  checkpoints: Checkpoints,
  unread?: UnreadWrites, // with metrics collected: for the iterator age
  idleMs = IDLE_POLL_MS,
) {
  let running = true;
  let generation = 0; // bumped by every invocation that wrote to the table
  let wake: (() => void) | undefined;
  const unsubscribe = runtime.onInvoked(({ written }) => {
    if (!written.has(mapping.table)) return;
    generation++;
    wake?.();
  });
  // A pause that a write to the table ends at once, unless `writesWake` is false; stopping ends it.
  const sleep = (ms: number, writesWake = true) =>
    new Promise<void>((ok) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        ok();
      }
      wake = () => (writesWake || !running) && done();
    });

  const checkpoint = (shardId: string) => `${mapping.fn.name}|${shardId}`;
  const iterators = new Map<string, string>();
  const handedBack = new Map<string, string>(); // shard id -> sequence number to read again from
  const retrying = new Map<string, RetryState>(); // shard id -> its failed batch
  let shards: Shard[] = [];
  const closed = new Set<string>();

  async function describe() {
    const all: Shard[] = [];
    let ExclusiveStartShardId: string | undefined;
    do {
      const { StreamDescription } = await client.send(new DescribeStreamCommand({ StreamArn: mapping.streamArn, ExclusiveStartShardId }));
      all.push(...(StreamDescription?.Shards ?? []));
      ExclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
    } while (ExclusiveStartShardId);
    shards = all;
  }

  // A shard is read once its parent (if the stream still has it) has been read to its end.
  const readable = () =>
    shards.filter((s) => !closed.has(s.ShardId!) && (!s.ParentShardId || closed.has(s.ParentShardId) || !shards.some((p) => p.ShardId === s.ParentShardId)));

  async function iteratorFor(shardId: string) {
    const at = handedBack.get(shardId);
    const done = checkpoints.get(checkpoint(shardId));
    const input = at
      ? { ShardIteratorType: 'AT_SEQUENCE_NUMBER' as const, SequenceNumber: at }
      : done
        ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER' as const, SequenceNumber: done }
        : { ShardIteratorType: mapping.startingPosition };
    const { ShardIterator } = await client.send(new GetShardIteratorCommand({ StreamArn: mapping.streamArn, ShardId: shardId, ...input }));
    return ShardIterator!;
  }

  // Sends a batch's on-failure record to the destination (without one, Lambda drops the batch).
  async function park(shardId: string, batch: LambdaRecord[], condition: string, invokes: number) {
    const seqs = `${batch[0].dynamodb.SequenceNumber}..${batch.at(-1)!.dynamodb.SequenceNumber}`;
    if (!mapping.onFailure) return console.error(`${mapping.fn.name}: dropped stream records ${seqs} (${condition}; no on-failure destination)`);
    const body = JSON.stringify(failureRecord(mapping, shardId, batch, condition, invokes));
    await sqs.send(new SendMessageCommand({ QueueUrl: mapping.onFailure, MessageBody: body }));
    console.error(`${mapping.fn.name}: stream records ${seqs} parked on its on-failure destination (${condition})`);
  }

  // Invokes the function with `records` (those that pass the filters), in batches; returns the
  // sequence number to read again from, or undefined when all were handled (or parked).
  async function deliver(shardId: string, records: ReadRecord[]): Promise<string | undefined> {
    const wanted = records.map((r) => lambdaRecord(r, mapping.streamArn)).filter((r) => !mapping.filters.length || mapping.filters.some((f) => matches(f, r)));
    let i = 0;
    while (i < wanted.length) {
      const state = retrying.get(shardId);
      const resumed = state?.from === wanted[i].dynamodb.SequenceNumber ? state : undefined;
      const batch = wanted.slice(i, i + (resumed?.limit ?? mapping.batchSize));
      if (unread) {
        // A backlog from before this process started is dated by its records, to the minute.
        const oldest = unread.oldest(mapping.fn.name) ?? batch[0].dynamodb.ApproximateCreationDateTime! * 1000;
        runtime.iteratorAge(mapping.fn.name, Date.now() - oldest);
      }
      const expired = expiredHead(
        batch.map((r) => r.dynamodb.ApproximateCreationDateTime ?? Date.now() / 1000),
        mapping.maxAgeSecs,
        Date.now() / 1000,
      );
      if (expired) {
        await park(shardId, batch.slice(0, expired), 'RecordAgeExceeded', resumed ? resumed.retries + 1 : 0);
        retrying.delete(shardId);
        i += expired;
        continue;
      }
      let failedFrom: string | undefined;
      let threw = false;
      try {
        const result = (await runtime.invoke(mapping.fn, { Records: batch })) as DynamoDBBatchResponse | undefined;
        const failed = mapping.partial ? (result?.batchItemFailures ?? []).map((f) => f.itemIdentifier) : [];
        failedFrom = failed.sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1))[0];
      } catch (err) {
        if (running) console.error(`${mapping.fn.name} failed; its stream batch will be handed back:`, (err as Error).message);
        failedFrom = batch[0].dynamodb.SequenceNumber;
        threw = true;
      }
      if (failedFrom === undefined) {
        retrying.delete(shardId);
        i += batch.length;
        continue;
      }
      const failed = batch.slice(
        Math.max(
          0,
          batch.findIndex((r) => r.dynamodb.SequenceNumber === failedFrom),
        ),
      );
      const next = afterFailure(state, failedFrom, failed.length, threw, mapping.retry);
      if (next !== 'park') {
        retrying.set(shardId, next);
        return failedFrom;
      }
      await park(shardId, failed, 'RetryAttemptsExhausted', (state?.retries ?? 0) + 1);
      retrying.delete(shardId);
      i += batch.length;
    }
    return undefined;
  }

  async function readShard(shard: Shard): Promise<boolean> {
    const id = shard.ShardId!;
    const iterator = iterators.get(id) ?? (await iteratorFor(id));
    let { Records = [], NextShardIterator } = await client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: READ_LIMIT }));
    // The batching window (batchWindow), as Lambda keeps it: records found wait for it, with what is
    // written meanwhile, unless they fill a batch; then they go in one invocation (the audit trail's:
    // one a second, not one a write). A batch handed back is tried again without it.
    const gathering = Records.length > 0 && Records.length < mapping.batchSize && NextShardIterator && !handedBack.has(id);
    if (mapping.batchWindowMs && gathering && running) {
      await sleep(mapping.batchWindowMs, false);
      if (!running) return false; // stopped meanwhile: read again from the checkpoint next time
      const later = await client.send(new GetRecordsCommand({ ShardIterator: NextShardIterator, Limit: READ_LIMIT - Records.length }));
      Records = [...Records, ...(later.Records ?? [])];
      NextShardIterator = later.NextShardIterator;
    }
    const retryFrom = Records.length ? await deliver(id, Records) : undefined;
    if (retryFrom) {
      const done = Records.filter((r) => BigInt(r.dynamodb!.SequenceNumber!) < BigInt(retryFrom)).at(-1);
      if (done) checkpoints.set(checkpoint(id), done.dynamodb!.SequenceNumber!);
      handedBack.set(id, retryFrom);
      throw new HandBack();
    }
    handedBack.delete(id);
    if (Records.length) checkpoints.set(checkpoint(id), Records.at(-1)!.dynamodb!.SequenceNumber!);
    if (NextShardIterator) iterators.set(id, NextShardIterator);
    else {
      iterators.delete(id);
      closed.add(id);
      await describe();
    }
    return Records.length === READ_LIMIT; // a short read took all there was: wait for the next write
  }

  const loop = (async () => {
    let failures = 0;
    while (running) {
      const seen = generation;
      const readStart = Date.now();
      let more = false;
      try {
        if (!shards.length) await describe();
        for (const shard of readable()) more = (await readShard(shard)) || more;
        failures = 0;
        if (!more) unread?.caughtUp(mapping.fn.name, readStart);
      } catch (err) {
        if (!running) return;
        // DynamoDB Local sometimes answers a new stream's first read (from TRIM_HORIZON, nothing read
        // yet, so nothing to lose) as trimmed while tables are being created around it: just read again.
        const early = (err as Error).name === 'TrimmedDataAccessException' && !shards.some((s) => checkpoints.has(checkpoint(s.ShardId!)));
        if (!(err instanceof HandBack) && !early) console.error(`stream poller ${mapping.fn.name}:`, (err as Error).message);
        iterators.clear(); // read again from the checkpoints (an iterator may also have expired)
        await sleep(Math.min(MAX_RETRY_PAUSE_MS, 50 * 2 ** failures++));
        continue;
      }
      if (!more && seen === generation && running) await sleep(idleMs);
    }
  })();

  return async () => {
    running = false;
    unsubscribe();
    wake?.();
    await loop;
  };
}

export function startStreamPollers(
  functions: FunctionDef[],
  refs: Refs,
  clients: { streams: StreamsReader; sqs: SqsSender },
  runtime: LambdaRuntime,
  checkpoints: Checkpoints,
  unread?: UnreadWrites, // with metrics collected: for the iterator age
  idleMs?: number,
) {
  const stops = streamMappings(functions, refs).map((m) => startStreamPoller(m, clients.streams, clients.sqs, runtime, checkpoints, unread, idleMs));
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}
