import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AttributeValue, DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { GetFunctionConfigurationCommand, InvokeCommand, LambdaClient, ListEventSourceMappingsCommand } from '@aws-sdk/client-lambda';
import { ChangeMessageVisibilityCommand, DeleteMessageCommand, GetQueueUrlCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { OUTBOX_RETENTION_SECS, OUTBOX_SORT_PREFIX } from '../lib/events';
import { dataDirOf, nodeFromArgs, STACK_ENV_FILE } from './local/defaults';
import { matches } from './local/event-pattern';
import { loadService, ROOT } from './local/serverless-config';
import { lambdaRecord } from './local/stream-poller';

// `npm run relay:redrive`: sends again what the outbox relay parked on RelayFailuresQueue. Each
// parked message is Lambda's on-failure record of a stream batch: a shard and a range of sequence
// numbers, not the items. The outbox items of that range are read again from the main table's
// stream (it keeps them 24 hours), or, once it no longer has them, from the table (outbox items
// are kept a week: every one written in the batch's time window, of any shard), and go through the
// relay's own code: on AWS by invoking the relay function (only its role may send to the bus and
// the work queues), locally in this process. A parked message is deleted once the relay sent every
// record of it; otherwise it stays, for the next run.
//
// Sending a record twice is safe, and happens (a range holds records the relay did send, and a
// run that dies after sending sends again): events keep their ids, and the webhook sender writes one
// record per event id and skips an event it has (the FSP also gets each event's id as webhook-id);
// a payment message only moves a payment that is in the state it expects; a webhook retry message
// runs only if its event has made exactly the attempts it names; a parked webhook event is parked
// by id. Nothing is skipped: a record is not deleted until the relay answered that it sent it.
const HELP = `usage: npm run relay:redrive -- [--stage STAGE [--region REGION]] [--node b] [--function NAME] [--from-table]

Sends again, through the outbox relay, the records it parked on its on-failure queue.

  --stage STAGE    a deployed stage (AWS credentials as the AWS CLI finds them); without it, the
                   running local stack (npm start; --node b for Node B's)
  --region REGION  its region (else AWS_REGION, else us-east-1)
  --function NAME  the relay function (payment-service-<stage>-outboxRelay; locally outboxRelay)
  --from-table     read the items from the table even if the stream still has them
  -h, --help       this text

Exit status: 0 when nothing is left parked, 1 when some record could not be sent (it stays parked), 2 for bad usage.`;

const STREAM_RETENTION_SECS = 24 * 3600;
// The window of the table read around a batch's arrival times: an outbox item's ttl counts from
// when its change was prepared, a little before DynamoDB took it (by Lambda's clock, not
// DynamoDB's), and arrival times are rounded down (to the second on AWS, the minute locally).
const WINDOW_SECS = 60;
const MAX_EMPTY_READS = 10; // an open shard can answer empty pages before the records a range names
const MAX_INVOKE_BYTES = 5_000_000; // under Lambda's 6 MB request payload

interface BatchInfo {
  shardId: string;
  startSequenceNumber: string;
  endSequenceNumber: string;
  approximateArrivalOfFirstRecord: string;
  approximateArrivalOfLastRecord: string;
  streamArn: string;
}

interface Redrive {
  sqs: SQSClient;
  streams: DynamoDBStreamsClient;
  dynamo: DynamoDBClient;
  failureQueueUrl: string;
  table: string;
  filters: Record<string, unknown>[];
  batchSize: number;
  relay(records: DynamoDBRecord[]): Promise<DynamoDBBatchResponse | undefined>;
  fromTable: boolean;
}

const seq = (s: string) => BigInt(s);

// The batch's records, from the stream; undefined when the stream no longer has all of them.
async function fromStream(r: Redrive, info: BatchInfo): Promise<DynamoDBRecord[] | undefined> {
  let iterator: string | undefined;
  try {
    ({ ShardIterator: iterator } = await r.streams.send(
      new GetShardIteratorCommand({
        StreamArn: info.streamArn,
        ShardId: info.shardId,
        ShardIteratorType: 'AT_SEQUENCE_NUMBER',
        SequenceNumber: info.startSequenceNumber,
      }),
    ));
  } catch (e) {
    // Trimmed (older than 24 hours), or a stream or shard that is gone (the table's stream was replaced).
    if (['TrimmedDataAccessException', 'ResourceNotFoundException', 'ValidationException'].includes((e as Error).name)) return undefined;
    throw e;
  }
  const records: DynamoDBRecord[] = [];
  for (let empty = 0; iterator && empty < MAX_EMPTY_READS; ) {
    const { Records = [], NextShardIterator } = await r.streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
    for (const record of Records) {
      if (seq(record.dynamodb!.SequenceNumber!) > seq(info.endSequenceNumber)) return records;
      records.push(lambdaRecord(record, info.streamArn) as DynamoDBRecord);
      if (record.dynamodb!.SequenceNumber === info.endSequenceNumber) return records;
    }
    empty = Records.length ? 0 : empty + 1;
    iterator = NextShardIterator;
  }
  return undefined; // the shard ended, or kept answering empty, before the range's end
}

// Every outbox item written in the batch's time window, as stream records (the relay reads the
// item's image and reports a failure by the record's sequence number, numbered here).
async function fromTable(r: Redrive, info: BatchInfo): Promise<DynamoDBRecord[]> {
  const secs = (iso: string) => Math.floor(Date.parse(iso) / 1000);
  const items: Record<string, AttributeValue>[] = [];
  let ExclusiveStartKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await r.dynamo.send(
      new ScanCommand({
        TableName: r.table,
        FilterExpression: 'begins_with(sk, :out) AND #ttl BETWEEN :from AND :to',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':out': { S: OUTBOX_SORT_PREFIX },
          ':from': { N: String(secs(info.approximateArrivalOfFirstRecord) - WINDOW_SECS + OUTBOX_RETENTION_SECS) },
          ':to': { N: String(secs(info.approximateArrivalOfLastRecord) + WINDOW_SECS + OUTBOX_RETENTION_SECS) },
        },
        ExclusiveStartKey,
      }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  items.sort((a, b) => Number(a.ttl.N) - Number(b.ttl.N));
  return items.map(
    (item, i) =>
      ({
        eventID: `redrive-${i + 1}`,
        eventName: 'INSERT',
        eventSource: 'aws:dynamodb',
        dynamodb: { Keys: { pk: item.pk, sk: item.sk }, NewImage: item, SequenceNumber: String(i + 1), StreamViewType: 'NEW_IMAGE' },
      }) as DynamoDBRecord,
  );
}

// Invocations of at most batchSize records and MAX_INVOKE_BYTES.
function invocations(r: Redrive, records: DynamoDBRecord[]): DynamoDBRecord[][] {
  const out: DynamoDBRecord[][] = [];
  let bytes = 0;
  for (const record of records) {
    const size = JSON.stringify(record).length;
    const last = out.at(-1);
    if (!last || last.length === r.batchSize || bytes + size > MAX_INVOKE_BYTES) {
      out.push([record]);
      bytes = size;
    } else {
      last.push(record);
      bytes += size;
    }
  }
  return out;
}

async function redriveOne(r: Redrive, info: BatchInfo): Promise<string> {
  const age = Date.now() / 1000 - Date.parse(info.approximateArrivalOfFirstRecord) / 1000;
  const streamed = r.fromTable || age > STREAM_RETENTION_SECS ? undefined : await fromStream(r, info);
  const source = streamed ? 'the stream' : 'the table';
  const records = (streamed ?? (await fromTable(r, info))).filter((rec) => !r.filters.length || r.filters.some((f) => matches(f, rec as never)));
  for (const batch of invocations(r, records)) {
    const failed = (await r.relay(batch))?.batchItemFailures ?? [];
    if (failed.length) throw new Error(`the relay could not send ${failed.length} of ${batch.length} record(s)`);
  }
  return `${records.length} outbox record(s), from ${source}`;
}

// Re-drives every parked record; returns how many are left parked.
async function redrive(r: Redrive, log: (line: string) => void): Promise<{ redriven: number; left: number }> {
  const left: string[] = []; // receipt handles, made visible again at the end (not received again in this run)
  let redriven = 0;
  for (;;) {
    const { Messages = [] } = await r.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: r.failureQueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, VisibilityTimeout: 900 }),
    );
    if (!Messages.length) break;
    for (const m of Messages) {
      let info: BatchInfo | undefined;
      try {
        info = JSON.parse(m.Body ?? '').DDBStreamBatchInfo;
      } catch {
        // not JSON: below
      }
      if (!info?.shardId) {
        log(`left parked: message ${m.MessageId} is not a stream batch's failure record`);
        left.push(m.ReceiptHandle!);
        continue;
      }
      const range = `${info.shardId} ${info.startSequenceNumber}..${info.endSequenceNumber}`;
      try {
        const what = await redriveOne(r, info);
        await r.sqs.send(new DeleteMessageCommand({ QueueUrl: r.failureQueueUrl, ReceiptHandle: m.ReceiptHandle }));
        log(`re-driven: ${range}: ${what}`);
        redriven++;
      } catch (e) {
        log(`left parked: ${range}: ${(e as Error).message}`);
        left.push(m.ReceiptHandle!);
      }
    }
  }
  for (const ReceiptHandle of left) await r.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: r.failureQueueUrl, ReceiptHandle, VisibilityTimeout: 0 }));
  return { redriven, left: left.length };
}

// A deployed stage: everything from the relay function's own configuration and event source mapping.
async function onAws(fn: string, region: string, fromTable: boolean): Promise<Redrive> {
  const lambda = new LambdaClient({ region });
  const sqs = new SQSClient({ region });
  const { Environment } = await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: fn }));
  const { EventSourceMappings = [] } = await lambda.send(new ListEventSourceMappingsCommand({ FunctionName: fn }));
  const mapping = EventSourceMappings.find((m) => m.EventSourceArn?.includes(':dynamodb:') && m.DestinationConfig?.OnFailure?.Destination);
  if (!mapping) throw new Error(`${fn} has no DynamoDB stream mapping with an on-failure destination`);
  const [, , , , account, name] = mapping.DestinationConfig!.OnFailure!.Destination!.split(':');
  const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: name, QueueOwnerAWSAccountId: account }));
  return {
    sqs,
    streams: new DynamoDBStreamsClient({ region }),
    dynamo: new DynamoDBClient({ region }),
    failureQueueUrl: QueueUrl!,
    table: Environment?.Variables?.MAIN_TABLE ?? '',
    filters: (mapping.FilterCriteria?.Filters ?? []).map((f) => JSON.parse(f.Pattern!)),
    batchSize: mapping.BatchSize ?? 100,
    fromTable,
    relay: async (records) => {
      const res = await lambda.send(new InvokeCommand({ FunctionName: fn, Payload: Buffer.from(JSON.stringify({ Records: records })) }));
      const text = Buffer.from(res.Payload ?? []).toString('utf8');
      if (res.FunctionError) throw new Error(`${fn} failed: ${text}`);
      return text ? JSON.parse(text) : undefined;
    },
  };
}

// The running local stack (npm start): its functions' environment (written to the node's data
// folder) and serverless.yml's mapping; the relay's code runs in this process.
async function onLocalStack(dataDir: string, fn: string, fromTable: boolean): Promise<Redrive> {
  const envFile = join(dataDir, STACK_ENV_FILE);
  if (!existsSync(envFile)) throw new Error(`no running local stack: ${envFile} is missing (npm start writes it)`);
  const env = JSON.parse(readFileSync(envFile, 'utf8')) as Record<string, string>;
  Object.assign(process.env, env);
  const service = loadService('local');
  const stream = service.functions.find((f) => f.name === fn)?.events.find((e) => e.stream)?.stream;
  const destination = stream?.destinations?.onFailure?.arn?.['Fn::GetAtt']?.[0];
  if (!destination) throw new Error(`serverless.yml has no function ${fn} with a stream and an on-failure queue`);
  // The local run names each table and queue <prefix><logical id> (infra/local/provision.ts).
  const mainTable = (service.environment.MAIN_TABLE as { Ref: string }).Ref;
  const prefix = env.MAIN_TABLE.slice(0, -mainTable.length);
  const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
  const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: `${prefix}${destination}` }));
  // After the environment is set: the functions' settings are read when lib/config loads.
  const [{ node }, { relayOutbox }] = await Promise.all([import('../lib/config'), import('../lib/events/relay')]);
  return {
    sqs,
    streams: new DynamoDBStreamsClient({ endpoint: env.AWS_ENDPOINT_URL_DYNAMODB }),
    dynamo: new DynamoDBClient({}),
    failureQueueUrl: QueueUrl!,
    table: env.MAIN_TABLE,
    filters: stream.filterPatterns ?? [],
    batchSize: Number(stream.batchSize ?? 100),
    fromTable,
    relay: (records) => relayOutbox(node, records),
  };
}

async function main() {
  const args = process.argv.slice(2);
  if (args.includes('-h') || args.includes('--help')) return console.log(HELP);
  const node = nodeFromArgs(args);
  const option = (name: string) => {
    const at = args.indexOf(name);
    if (at === -1) return undefined;
    const value = args[at + 1];
    if (!value || value.startsWith('--')) throw new Usage(`${name} takes a value`);
    args.splice(at, 2);
    return value;
  };
  const stage = option('--stage');
  const region = option('--region') ?? process.env.AWS_REGION ?? 'us-east-1';
  const fn = option('--function');
  const fromTable = args.includes('--from-table');
  const unknown = args.filter((a) => a !== '--from-table');
  if (unknown.length) throw new Usage(`unknown argument: ${unknown.join(' ')}`);
  const r = stage
    ? await onAws(fn ?? `payment-service-${stage}-outboxRelay`, region, fromTable)
    : await onLocalStack(dataDirOf(ROOT, node), fn ?? 'outboxRelay', fromTable);
  const { redriven, left } = await redrive(r, console.log);
  console.log(`${redriven} parked record(s) re-driven, ${left} left parked`);
  process.exit(left ? 1 : 0);
}

class Usage extends Error {}

main().catch((e) => {
  console.error(e instanceof Usage ? `${e.message}\n\n${HELP}` : `error: ${(e as Error).message}`);
  process.exit(e instanceof Usage ? 2 : 1);
});
