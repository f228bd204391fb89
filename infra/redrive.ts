import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AttributeValue, DescribeTableCommand, DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { GetFunctionConfigurationCommand, InvokeCommand, LambdaClient, ListEventSourceMappingsCommand } from '@aws-sdk/client-lambda';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListQueuesCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import * as z from 'zod';
import type { PaymentMessage } from '../lib/payments/schemas';
import { OUTBOX_RETENTION_SECS, OUTBOX_SORT_PREFIX } from '../lib/platform/events';
import { OPERATOR_TENANT_ID } from '../lib/shared/node';
import { tenantId } from '../lib/shared/values';
import { busEnvelope, queuedEvent, webhookQueueMessage } from '../lib/webhooks/messages';
import type { RedeliverMessage } from '../lib/webhooks/schemas';
import { matches } from './local/emulators/event-pattern';
import { lambdaRuntime, localFunctionArn } from './local/emulators/lambda';
import { lambdaRecord } from './local/emulators/stream-poller';
import { dataDirOf, type NodeName, nodeFromArgs, STACK_ENV_FILE } from './local/start/defaults';
import { type FunctionDef, loadService, ROOT, type ServiceDef } from './local/start/serverless-config';

// `npm run redrive -- <queue>`: sends again what waits on one of the service's failure queues, once
// its cause is gone, by the path it missed and through the service's own code and roles (the queue
// policies let only the outbox relay feed the work queues, so the re-drive goes through it too):
// - RelayFailuresQueue: Lambda's on-failure records of the outbox relay's stream batches (a shard
//   and a range of sequence numbers, not the items). The items are read again from the main table's
//   stream (kept 24 hours) or, after that, from the table (outbox items are kept 15 days: every one
//   written in the batch's time window, of any shard), and go to the relay;
// - a dead-letter queue (PaymentsDeadLetterQueue, WebhookDeadLetterQueue; EventsDeadLetterQueue,
//   what the bus could not put on the webhook queue): each message goes back to the queue it was
//   meant for, through the relay, as one outbox message of its own;
// - ScheduledFailuresQueue: Lambda's on-failure records of scheduled runs: each run again, with
//   the event it failed on, by invoking its function;
// - WebhookParkingQueue: events whose delivery attempts were used up, each sent back to the webhook
//   sender (through the relay, as a message for its tenant), which redelivers it if its record still
//   says failed: the tenant's, a deleted tenant's too, to its own webhook URL, signed with its secret.
// Which queue is which comes from serverless.yml, as the template does. A message is deleted once
// its re-drive succeeded; one that failed stays (visible again at the end), and the exit status is 1.
//
// Nothing on a failure queue is trusted (anyone the queue's policy misses could have put it there):
// each message is checked before anything is done with it. An on-failure record must name, by the
// ARN it has on this stage, a function whose failures go to this queue, with the event that
// function's trigger gives it (a schedule's; a batch of the main table's stream for the relay); a
// dead-letter or parked message must be what its queue carries. Anything else is refused, named, and
// left on the queue; no other function (an Admin route's, say) is ever invoked.
//
// Sending again is safe, and happens (a range holds records the relay did send; a run that dies after
// sending sends again): events keep their ids, and the webhook sender writes one record per event id
// and skips an event it has (the FSP also gets each event's id as webhook-id); a payment message
// only moves a payment that is in the state it expects; a webhook retry message runs only if its
// event has made exactly the attempts it names, and a parked event is redelivered only while its
// record says failed; a scheduled run does what the next one would.
const HELP = `usage: npm run redrive -- <queue> [--stage STAGE [--region REGION]] [--node b|c] [--from-table]
       npm run redrive [--stage STAGE [--region REGION]] [--node b|c]   (the failure queues and what they hold)

Sends again, through the service's own code, what waits on one of its failure queues.

  <queue>          the queue's logical id in the template, e.g. PaymentsDeadLetterQueue
  --stage STAGE    a deployed stage (AWS credentials as the AWS CLI finds them); without it, the
                   running local stack (npm start; --node b|c for Node B's or C's)
  --region REGION  its region (else AWS_REGION, else us-east-1)
  --from-table     RelayFailuresQueue: read the items from the table even if the stream still has them
  -h, --help       this text

A message that is not what its queue holds is refused: named, with why, and left on the queue.

Exit status: 0 when nothing is left on the queue, 1 when something could not be re-driven (it stays), 2 for bad usage.`;

type Kind = 'stream' | 'invocation' | 'dead-letter' | 'parked';
interface FailureQueue {
  kind: Kind;
  for: string; // what it holds the failures of: a function, a queue, a rule's target queue
  functions: FunctionDef[]; // stream, invocation: the functions whose failures go to it
  target?: string; // dead-letter, parked: the queue its messages go back to
  carries?: z.ZodType; // dead-letter: what each of its messages must be
}

const ref = (arn: unknown) => (arn as { 'Fn::GetAtt'?: [string, string] })?.['Fn::GetAtt']?.[0];

// What PaymentsQueue carries (lib/payments/schemas.ts), with the tenant the relay names on a tenant's.
const paymentMessage = z.strictObject({
  paymentId: z.string().min(1).max(128),
  intentId: z.string().min(1).max(128).optional(),
  walletAddress: z.string().min(1).max(2048).optional(),
  tenant: tenantId.optional(),
}) satisfies z.ZodType<PaymentMessage>;
// What each work queue carries, by its logical id: what its dead-letter queue holds. A new work
// queue's dead-letter queue is refused whole until it is here.
const CARRIES: Record<string, z.ZodType> = { PaymentsQueue: paymentMessage, WebhookQueue: webhookQueueMessage };

// The service's failure queues, by logical id, from serverless.yml and infra/resources.yml.
function failureQueues(service: ServiceDef): Map<string, FailureQueue> {
  const queues = new Map<string, FailureQueue>();
  const add = (id: string, kind: 'stream' | 'invocation', fn: FunctionDef) => {
    const q = queues.get(id) ?? { kind, for: '', functions: [] };
    q.functions.push(fn);
    q.for = q.functions.map((f) => f.name).join(', ');
    queues.set(id, q);
  };
  for (const fn of service.functions) {
    for (const e of fn.events) {
      const onFailure = ref(e.stream?.destinations?.onFailure?.arn);
      if (onFailure) add(onFailure, 'stream', fn);
    }
    const onFailure = ref(fn.destinations?.onFailure?.arn);
    if (onFailure) add(onFailure, 'invocation', fn);
  }
  for (const [id, r] of Object.entries(service.resources)) {
    const dlq = ref(r.Properties?.RedrivePolicy?.deadLetterTargetArn);
    if (dlq) queues.set(dlq, { kind: 'dead-letter', for: id, functions: [], target: id, carries: CARRIES[id] });
    for (const t of r.Type === 'AWS::Events::Rule' ? (r.Properties?.Targets ?? []) : []) {
      const target = ref(t.Arn);
      const dead = ref(t.DeadLetterConfig?.Arn);
      // What a rule of the bus could not deliver: one of the bus's events.
      if (dead && target) queues.set(dead, { kind: 'dead-letter', for: `${id} (to ${target})`, functions: [], target, carries: busEnvelope });
    }
  }
  // Parked events go back to the webhook sender's queue.
  const webhooks = (service.environment.WEBHOOK_QUEUE_URL as { Ref?: string } | undefined)?.Ref;
  for (const id of service.custom.alarms?.parkingQueues ?? []) {
    queues.set(id, { kind: 'parked', for: 'webhook events whose attempts were used up', functions: [], target: webhooks });
  }
  return queues;
}

// Where the re-drive runs: a deployed stage, or the running local stack.
interface Place {
  sqs: SQSClient;
  queueUrl(id: string): Promise<string>;
  // The ARN a function of the service has here, unqualified.
  functionArn(fn: FunctionDef): string;
  // The outbox relay, given stream records of outbox items.
  relay(records: DynamoDBRecord[]): Promise<DynamoDBBatchResponse | undefined>;
  // A function of the service, run again with the event it failed on.
  invoke(fn: FunctionDef, payload: unknown): Promise<void>;
  streams: DynamoDBStreamsClient;
  dynamo: DynamoDBClient;
  table: string;
  tableArn: string; // the main table's: a stream batch's must be one of its streams
  relayMapping: { filters: Record<string, unknown>[]; batchSize: number };
}

const STREAM_RETENTION_SECS = 24 * 3600;
// The window of the table read around a batch's arrival times: an outbox item's ttl counts from
// when its change was prepared, a little before DynamoDB took it (by Lambda's clock, not
// DynamoDB's), and arrival times are rounded down (to the second on AWS, the minute locally).
const WINDOW_SECS = 60;
const MAX_EMPTY_READS = 10; // an open shard can answer empty pages before the records a range names
const MAX_INVOKE_BYTES = 5_000_000; // under Lambda's 6 MB request payload

// Lambda's on-failure records: the function by its ARN (with a version or alias, or none), and what
// it failed on: a stream batch's shard and range, or the event it was invoked with.
const requestContext = z.object({
  functionArn: z.string().regex(/^arn:[\w-]+:lambda:[\w-]+:\d{12}:function:[\w-]{1,140}(:[\w$-]+)?$/, 'must be a function ARN'),
});
const sequenceNumber = z.string().regex(/^\d{1,40}$/, 'must be a sequence number');
const streamFailure = z.object({
  requestContext,
  DDBStreamBatchInfo: z.object({
    shardId: z.string().min(1).max(65),
    startSequenceNumber: sequenceNumber,
    endSequenceNumber: sequenceNumber,
    approximateArrivalOfFirstRecord: z.iso.datetime(),
    approximateArrivalOfLastRecord: z.iso.datetime(),
    streamArn: z.string().min(1).max(1024),
  }),
});
const invocationFailure = z.object({ requestContext, requestPayload: z.unknown() });
type BatchInfo = z.output<typeof streamFailure>['DDBStreamBatchInfo'];

const seq = (s: string) => BigInt(s);

// The batch's records, from the stream; undefined when the stream no longer has all of them.
async function streamRecords(p: Place, info: BatchInfo): Promise<DynamoDBRecord[] | undefined> {
  let iterator: string | undefined;
  try {
    ({ ShardIterator: iterator } = await p.streams.send(
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
    const { Records = [], NextShardIterator } = await p.streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
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

// Every outbox item written in the batch's time window, as stream records.
async function tableRecords(p: Place, info: BatchInfo): Promise<DynamoDBRecord[]> {
  const secs = (iso: string) => Math.floor(Date.parse(iso) / 1000);
  const items: Record<string, AttributeValue>[] = [];
  let ExclusiveStartKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await p.dynamo.send(
      new ScanCommand({
        TableName: p.table,
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
  return items.map((item, i) => outboxRecord(`redrive-${i + 1}`, item));
}

// An outbox item as the relay gets it from the stream (it reports a failure by the sequence number).
const outboxRecord = (sequenceNumber: string, image: Record<string, AttributeValue>) =>
  ({
    eventID: `redrive-${sequenceNumber}`,
    eventName: 'INSERT',
    eventSource: 'aws:dynamodb',
    dynamodb: { Keys: { pk: image.pk, sk: image.sk }, NewImage: image, SequenceNumber: sequenceNumber, StreamViewType: 'NEW_IMAGE' },
  }) as DynamoDBRecord;

// Invocations of at most batchSize records and MAX_INVOKE_BYTES.
function invocations(batchSize: number, records: DynamoDBRecord[]): DynamoDBRecord[][] {
  const out: DynamoDBRecord[][] = [];
  let bytes = 0;
  for (const record of records) {
    const size = JSON.stringify(record).length;
    const last = out.at(-1);
    if (!last || last.length === batchSize || bytes + size > MAX_INVOKE_BYTES) {
      out.push([record]);
      bytes = size;
    } else {
      last.push(record);
      bytes += size;
    }
  }
  return out;
}

async function relayAll(p: Place, records: DynamoDBRecord[]) {
  for (const batch of invocations(p.relayMapping.batchSize, records)) {
    const failed = (await p.relay(batch))?.batchItemFailures ?? [];
    if (failed.length) throw new Error(`the relay could not send ${failed.length} of ${batch.length} record(s)`);
  }
}

// What re-drives one message of each kind of queue, once it is found to be what the queue holds;
// it answers what it did, or throws (Refused: the message is not what the queue holds).
class Refused extends Error {}

// `value` as `schema` reads it; else refused, saying why and where.
function parsedAs<S extends z.ZodType>(schema: S, value: unknown, why: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const [{ path, message }] = parsed.error.issues;
  throw new Refused(`${why}: ${path.length ? `${path.join('.')}: ` : ''}${message}`);
}

// The message's body, as `schema` reads it; else it is refused.
function bodyOf<S extends z.ZodType>(m: Message, schema: S | undefined, what: string): z.output<S> {
  if (!schema) throw new Refused(`this command cannot tell ${what} (redrive.ts CARRIES)`);
  let json: unknown;
  try {
    json = JSON.parse(m.Body ?? '');
  } catch {
    throw new Refused('its body is not JSON');
  }
  return parsedAs(schema, json, `not ${what}`);
}

// What a `schedule` event gives its function (EventBridge's scheduled event): all a scheduled run
// may be run again with.
const scheduledEvent = z.strictObject({
  version: z.literal('0'),
  id: z.string().min(1).max(128),
  'detail-type': z.literal('Scheduled Event'),
  source: z.literal('aws.events'),
  account: z
    .string()
    .regex(/^\d{12}$/)
    .optional(),
  time: z.iso.datetime(),
  region: z.string().max(64).optional(),
  resources: z.array(z.string().max(2048)).max(5).optional(),
  detail: z.strictObject({}),
});
// The event a function's trigger gives it, for the triggers whose failures are re-driven by invoking it.
const triggerOf = (fn: FunctionDef): z.ZodType | undefined => (fn.events.some((e) => e.schedule) ? scheduledEvent : undefined);

// The function an on-failure record names, if it is one whose failures go to this queue, by the ARN
// it has here (a version or alias qualifier aside); else the record is refused.
function failedFunction(p: Place, functionArn: string, queue: string, q: FailureQueue): FunctionDef {
  const unqualified = functionArn.split(':').slice(0, 7).join(':');
  const fn = q.functions.find((f) => p.functionArn(f) === unqualified);
  if (!fn) throw new Refused(`it names ${functionArn}, which is not a function of this service whose failures go to ${queue} (${q.for})`);
  return fn;
}

type Redrive = (p: Place, m: Message, queue: string, q: FailureQueue, options: { fromTable: boolean }) => Promise<string>;
const REDRIVE: Record<Kind, Redrive> = {
  async stream(p, m, queue, q, { fromTable }) {
    const record = bodyOf(m, streamFailure, "a stream batch's on-failure record");
    failedFunction(p, record.requestContext.functionArn, queue, q);
    const info = record.DDBStreamBatchInfo;
    if (!info.streamArn.startsWith(`${p.tableArn}/stream/`)) throw new Refused(`its batch is of ${info.streamArn}, not of a stream of the main table`);
    const age = Date.now() / 1000 - Date.parse(info.approximateArrivalOfFirstRecord) / 1000;
    const streamed = fromTable || age > STREAM_RETENTION_SECS ? undefined : await streamRecords(p, info);
    const { filters } = p.relayMapping;
    const records = (streamed ?? (await tableRecords(p, info))).filter((rec) => !filters.length || filters.some((f) => matches(f, rec as never)));
    await relayAll(p, records);
    return `${info.shardId} ${info.startSequenceNumber}..${info.endSequenceNumber}: ${records.length} outbox record(s), from ${streamed ? 'the stream' : 'the table'}`;
  },
  // Back to its queue, as one outbox message of its own (the relay sends it with the trace it had).
  async 'dead-letter'(p, m, _queue, q) {
    bodyOf(m, q.carries, `a message of ${q.target}`);
    await backOn(p, m, q.target!, m.Body!);
    return `message ${m.MessageId} back on ${q.target}`;
  },
  async invocation(p, m, queue, q) {
    const record = bodyOf(m, invocationFailure, "a function's on-failure record");
    const fn = failedFunction(p, record.requestContext.functionArn, queue, q);
    const trigger = triggerOf(fn);
    if (!trigger) throw new Refused(`${fn.name} has no trigger whose event this command knows`);
    await p.invoke(fn, parsedAs(trigger, record.requestPayload, `its payload is not the event ${fn.name}'s trigger gives it`));
    return `${fn.name} ran again`;
  },
  // To the webhook sender, as a message for the event's tenant: the sender redelivers it if its
  // record still says failed.
  async parked(p, m, _queue, q) {
    const event = bodyOf(m, queuedEvent, 'a parked webhook event');
    const message: RedeliverMessage & { tenant?: string } = { redeliver: event.id, ...(event.tenant && { tenant: event.tenant }) };
    await backOn(p, m, q.target!, JSON.stringify(message));
    return `webhook event ${event.id} of tenant ${event.tenant ?? OPERATOR_TENANT_ID} back to the webhook sender on ${q.target}, which redelivers it if it is still failed`;
  },
};

// `body` on the queue `target`, as the message `m` put there again: one outbox message of its own,
// sent by the relay with the trace `m` had.
async function backOn(p: Place, m: Message, target: string, body: string) {
  const queueUrl = await p.queueUrl(target);
  const out = JSON.stringify([{ kind: 'message', id: m.MessageId, queueUrl, body }]);
  const trace = m.Attributes?.AWSTraceHeader;
  await relayAll(p, [
    outboxRecord('1', {
      pk: { S: `REDRIVE#${m.MessageId}` },
      sk: { S: `${OUTBOX_SORT_PREFIX}${m.MessageId}` },
      out: { S: out },
      ...(trace && { trace: { S: trace } }),
    }),
  ]);
}

// Re-drives every message on the queue; returns how many it re-drove and how many stay.
async function redrive(p: Place, id: string, q: FailureQueue, options: { fromTable: boolean }, log: (line: string) => void) {
  const url = await p.queueUrl(id);
  const left: string[] = []; // receipt handles, made visible again at the end (not received again in this run)
  let redriven = 0;
  for (;;) {
    const { Messages = [] } = await p.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        VisibilityTimeout: 900,
        MessageSystemAttributeNames: ['AWSTraceHeader'],
      }),
    );
    if (!Messages.length) break;
    for (const m of Messages) {
      try {
        const what = await REDRIVE[q.kind](p, m, id, q, options);
        await p.sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle }));
        log(`re-driven: ${what}`);
        redriven++;
      } catch (e) {
        log(`left on ${id}: message ${m.MessageId}: ${e instanceof Refused ? 'refused: ' : ''}${(e as Error).message}`);
        left.push(m.ReceiptHandle!);
      }
    }
  }
  for (const ReceiptHandle of left) await p.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: url, ReceiptHandle, VisibilityTimeout: 0 }));
  return { redriven, left: left.length };
}

// A deployed stage: its queues by the names CloudFormation gave them (<stack>-<logical id>-…), its
// functions by serverless's names (<service>-<stage>-<name>).
async function onAws(service: ServiceDef, stage: string, region: string): Promise<Place> {
  const lambda = new LambdaClient({ region });
  const sqs = new SQSClient({ region });
  const dynamo = new DynamoDBClient({ region });
  const stack = `${service.service}-${stage}`;
  const queueUrl = async (id: string) => {
    const prefix = `${stack}-${id}-`.slice(0, 80);
    const { QueueUrls = [] } = await sqs.send(new ListQueuesCommand({ QueueNamePrefix: prefix }));
    if (QueueUrls.length !== 1) throw new Error(`${QueueUrls.length} queues are named ${prefix}…: expected one`);
    return QueueUrls[0];
  };
  const nameOf = (fn: FunctionDef) => `${stack}-${fn.name}`;
  const relayFn = nameOf(relayOf(service));
  const { Environment, FunctionArn = '' } = await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: relayFn }));
  const { EventSourceMappings = [] } = await lambda.send(new ListEventSourceMappingsCommand({ FunctionName: relayFn }));
  const mapping = EventSourceMappings.find((m) => m.EventSourceArn?.includes(':dynamodb:'));
  const table = Environment?.Variables?.MAIN_TABLE ?? '';
  const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: table }));
  const invoke = async (functionName: string, payload: unknown) => {
    const res = await lambda.send(new InvokeCommand({ FunctionName: functionName, Payload: Buffer.from(JSON.stringify(payload)) }));
    const text = Buffer.from(res.Payload ?? []).toString('utf8');
    if (res.FunctionError) throw new Error(`${functionName} failed: ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  return {
    sqs,
    queueUrl,
    // The relay's ARN names the account and region: the others differ by their names.
    functionArn: (fn) => `${FunctionArn.slice(0, FunctionArn.lastIndexOf(':function:'))}:function:${nameOf(fn)}`,
    streams: new DynamoDBStreamsClient({ region }),
    dynamo,
    table,
    tableArn: Table?.TableArn ?? '',
    relayMapping: { filters: (mapping?.FilterCriteria?.Filters ?? []).map((f) => JSON.parse(f.Pattern!)), batchSize: mapping?.BatchSize ?? 100 },
    relay: (records) => invoke(relayFn, { Records: records }),
    invoke: async (fn, payload) => void (await invoke(nameOf(fn), payload)),
  };
}

// The running local stack (npm start): its functions' environment (written to the node's data
// folder); the functions run in this process, against its emulators.
async function onLocalStack(service: ServiceDef, node: NodeName): Promise<Place> {
  const envFile = join(dataDirOf(ROOT, node), STACK_ENV_FILE);
  if (!existsSync(envFile)) throw new Error(`no running local stack: ${envFile} is missing (npm start writes it)`);
  const env = JSON.parse(readFileSync(envFile, 'utf8')) as Record<string, string>;
  Object.assign(process.env, env);
  // The local run names each table and queue <prefix><logical id> (infra/local/emulators/provision.ts).
  const prefix = env.MAIN_TABLE.slice(0, -(service.environment.MAIN_TABLE as { Ref: string }).Ref.length);
  const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
  const dynamo = new DynamoDBClient({});
  const relay = relayOf(service);
  const stream = relay.events.find((e) => e.stream)!.stream;
  const runtime = lambdaRuntime();
  const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: env.MAIN_TABLE }));
  // After the environment is set: the functions' settings are read when lib/platform/config loads.
  const [{ node: serviceNode }, { relayOutbox }] = await Promise.all([import('../lib/platform/config'), import('../lib/platform/events/relay')]);
  return {
    sqs,
    queueUrl: async (id) => (await sqs.send(new GetQueueUrlCommand({ QueueName: `${prefix}${id}` }))).QueueUrl!,
    functionArn: localFunctionArn,
    streams: new DynamoDBStreamsClient({ endpoint: env.AWS_ENDPOINT_URL_DYNAMODB }),
    dynamo,
    table: env.MAIN_TABLE,
    tableArn: Table?.TableArn ?? '',
    relayMapping: { filters: stream.filterPatterns ?? [], batchSize: Number(stream.batchSize ?? 100) },
    relay: (records) => relayOutbox(serviceNode, records),
    invoke: async (fn, payload) => void (await runtime.invoke(fn, payload)),
  };
}

function relayOf(service: ServiceDef): FunctionDef {
  const fn = service.functions.find((f) => f.events.some((e) => e.stream?.destinations?.onFailure));
  if (!fn) throw new Error('serverless.yml has no function with a stream and an on-failure queue');
  return fn;
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
  const fromTable = args.includes('--from-table');
  const [queue, ...unknown] = args.filter((a) => a !== '--from-table');
  if (unknown.length) throw new Usage(`unknown argument: ${unknown.join(' ')}`);
  const service = loadService(stage ?? 'local');
  const queues = failureQueues(service);
  const place = stage ? await onAws(service, stage, region) : await onLocalStack(service, node);
  if (!queue) {
    for (const [id, q] of queues) {
      const { Attributes } = await place.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: await place.queueUrl(id), AttributeNames: ['ApproximateNumberOfMessages'] }),
      );
      console.log(`${id}: ${Attributes?.ApproximateNumberOfMessages ?? '?'} message(s) (${q.kind}: ${q.for})`);
    }
    return;
  }
  const q = queues.get(queue);
  if (!q) throw new Usage(`${queue} is not a failure queue; these are: ${[...queues.keys()].join(', ')}`);
  const { redriven, left } = await redrive(place, queue, q, { fromTable }, console.log);
  console.log(`${redriven} message(s) of ${queue} re-driven, ${left} left on it`);
  process.exit(left ? 1 : 0);
}

class Usage extends Error {}

main().catch((e) => {
  console.error(e instanceof Usage ? `${e.message}\n\n${HELP}` : `error: ${(e as Error).message}`);
  process.exit(e instanceof Usage ? 2 : 1);
});
