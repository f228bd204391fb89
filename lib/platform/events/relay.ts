import { EventBridgeClient, EventBridgeServiceException, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import type { Node } from '../../shared/node';
import { overJson } from '../aws-json';
import { crashPoint } from '../faults';
import { logger } from '../log';
import { sqs, withTraceHeader } from '../sqs';
import { type Span, startSegmentFor } from '../tracing';
import { EVENT_SOURCE, type Outbound } from '.';

// The outbox relay: the main table's stream, filtered to new outbox items, brings each committed
// change's events and messages here; events go to the bus, messages to their queues. A record of
// which anything could not be sent is reported (by its sequence number), and the stream hands it,
// and everything after it on its shard, back again: so all is sent at least once, some twice.
// A record still failing after the mapping's retries (or too old) is parked on RelayFailuresQueue,
// and `npm run redrive -- RelayFailuresQueue` sends it through this same code later (infra/redrive.ts).
// Each item's sending is a segment in the trace the item was written in (its `trace`), and its
// events and messages go on with that segment's trace header, so that their consumers continue
// the trace: the relay's own invocation serves items of many traces.
// The bus's one call goes over the lean JSON sender (../aws-json.ts), the SDK's client resolving its
// endpoint, region and credentials: the SDK's own stack cost about 1 ms a call.
const EVENTBRIDGE = {
  label: 'EventBridge',
  signingName: 'events',
  target: 'AWSEvents',
  version: '1.1',
  ServiceException: EventBridgeServiceException,
} as const;
let eventBridge: Pick<EventBridgeClient, 'send'> | undefined;
const bus = () => (eventBridge ??= overJson(new EventBridgeClient({}), EVENTBRIDGE, [[PutEventsCommand, 'PutEvents']]));

const BATCH = 10; // PutEvents and SendMessageBatch take at most ten entries
const MAX_PUT_EVENTS_BYTES = 250_000; // under PutEvents' 256 KB a request

interface Entry {
  sequenceNumber: string;
  out: Outbound;
  trace?: string; // the trace header its item was written with
  hop?: Span; // its item's sending, in that trace
  tenant?: string; // its item's tenant, unless the operator's
}

function parse(record: DynamoDBRecord): Entry[] | undefined {
  const sequenceNumber = record.dynamodb?.SequenceNumber;
  const text = record.dynamodb?.NewImage?.out?.S;
  if (!sequenceNumber || !text) return undefined;
  let out: Outbound[];
  try {
    out = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(out)) return undefined;
  const trace = record.dynamodb?.NewImage?.trace?.S;
  const tenant = record.dynamodb?.NewImage?.tenant?.S;
  const hop = startSegmentFor(trace);
  return out.map((o) => ({ sequenceNumber, out: o, trace, hop, tenant }));
}

// The call that sends a chunk, as a subsegment of each of its entries' hops (the one call serves
// several traces), ended with its entry's outcome. Each entry goes on with the header of its own
// (or, where nothing records, its item's: the trace still goes on).
const sendsOf = (chunk: Entry[], service: string, operation: string) => chunk.map((e) => e.hop?.child(service, { namespace: 'aws', aws: { operation } }));
const headerOf = (e: Entry, send: Span | undefined) => send?.header ?? e.trace;

// Splits into requests of at most ten entries and, for events, at most MAX_PUT_EVENTS_BYTES.
function chunks<T>(items: T[], size: (t: T) => number = () => 0, maxBytes = Infinity): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const n = size(item);
    if (current.length === BATCH || (current.length && bytes + n > maxBytes)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += n;
  }
  if (current.length) out.push(current);
  return out;
}

async function putEvents(busName: string, entries: Entry[], failed: Set<string>) {
  const toEntry = (e: Entry, traceHeader?: string): PutEventsRequestEntry => {
    const event = (e.out as Extract<Outbound, { kind: 'event' }>).event;
    const detail = e.tenant ? { ...event, tenant: e.tenant } : event;
    return { EventBusName: busName, Source: EVENT_SOURCE, DetailType: event.type, Detail: JSON.stringify(detail), TraceHeader: traceHeader };
  };
  const size = (e: Entry) => Buffer.byteLength(toEntry(e).Detail!) + 100;
  await Promise.all(
    chunks(entries, size, MAX_PUT_EVENTS_BYTES).map(async (chunk) => {
      const sends = sendsOf(chunk, 'EventBridge', 'PutEvents');
      try {
        crashPoint('outbox-relay:send'); // as if the bus refused them
        const res = await bus().send(new PutEventsCommand({ Entries: chunk.map((e, i) => toEntry(e, headerOf(e, sends[i]))) }));
        for (const [i, r] of (res.Entries ?? []).entries()) if (r.ErrorCode) failed.add(chunk[i].sequenceNumber);
        for (const [i, send] of sends.entries()) send?.end(res.Entries?.[i]?.ErrorCode ? new Error(res.Entries[i].ErrorMessage) : undefined);
      } catch (error) {
        logger.warn('PutEvents failed; the stream will hand these back', { count: chunk.length, error: (error as Error).message });
        for (const e of chunk) failed.add(e.sequenceNumber);
        for (const send of sends) send?.end(error);
      }
    }),
  );
}

async function sendMessages(entries: Entry[], failed: Set<string>) {
  const byQueue = new Map<string, Entry[]>();
  for (const e of entries) {
    const queueUrl = (e.out as Extract<Outbound, { kind: 'message' }>).queueUrl;
    byQueue.set(queueUrl, [...(byQueue.get(queueUrl) ?? []), e]);
  }
  await Promise.all(
    [...byQueue].flatMap(([queueUrl, queued]) =>
      chunks(queued).map(async (chunk) => {
        const sends = sendsOf(chunk, 'SQS', 'SendMessageBatch');
        try {
          crashPoint('outbox-relay:send'); // as if the queue refused them
          const res = await sqs().send(
            new SendMessageBatchCommand({
              QueueUrl: queueUrl,
              Entries: chunk.map((e, i) => {
                const m = e.out as Extract<Outbound, { kind: 'message' }>;
                const body = e.tenant ? JSON.stringify({ ...JSON.parse(m.body), tenant: e.tenant }) : m.body;
                return { Id: String(i), MessageBody: body, DelaySeconds: m.delaySeconds, ...withTraceHeader(headerOf(e, sends[i])) };
              }),
            }),
          );
          const refused = new Map((res.Failed ?? []).map((f) => [Number(f.Id), f]));
          for (const i of refused.keys()) failed.add(chunk[i].sequenceNumber);
          for (const [i, send] of sends.entries()) send?.end(refused.has(i) ? new Error(refused.get(i)!.Message) : undefined);
        } catch (error) {
          logger.warn('SendMessageBatch failed; the stream will hand these back', { queueUrl, count: chunk.length, error: (error as Error).message });
          for (const e of chunk) failed.add(e.sequenceNumber);
          for (const send of sends) send?.end(error);
        }
      }),
    ),
  );
}

export async function relayOutbox(node: Node, records: DynamoDBRecord[]): Promise<DynamoDBBatchResponse> {
  const entries: Entry[] = [];
  for (const record of records) {
    const parsed = parse(record);
    // Not an outbox item this code wrote: holding up the shard for it would help nobody.
    if (parsed) entries.push(...parsed);
    else logger.error('Skipping a stream record that is not an outbox item', { eventID: record.eventID, keys: record.dynamodb?.Keys });
  }
  const failed = new Set<string>();
  await Promise.all([
    putEvents(
      node.eventBus,
      entries.filter((e) => e.out.kind === 'event'),
      failed,
    ),
    sendMessages(
      entries.filter((e) => e.out.kind === 'message'),
      failed,
    ),
  ]);
  for (const e of entries) e.hop?.end(failed.has(e.sequenceNumber) ? new Error('Not sent; the stream hands it back') : undefined);
  crashPoint('outbox-relay:after-send');
  if (failed.size) logger.warn('Outbox records not sent; retried from the first', { failed: failed.size, of: entries.length });
  return { batchItemFailures: [...failed].map((itemIdentifier) => ({ itemIdentifier })) };
}
