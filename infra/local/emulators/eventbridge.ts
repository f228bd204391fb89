import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { withTraceHeader } from '../../../lib/platform/sqs';
import { listen } from '../start/listen';
import { matches } from './event-pattern';
import type { SqsSender } from './sqs';

// A small EventBridge emulator: PutEvents over the AWS JSON 1.1 wire protocol, rules matched by
// event pattern, SQS targets. An entry's TraceHeader reaches the target queue as the message's
// AWSTraceHeader, not in the event, as EventBridge passes it. No standalone EventBridge server
// ships on npm, so the local run uses this; the rules come from infra/resources.yml like
// everything else.
export interface Rule {
  name: string;
  bus: string;
  pattern: Record<string, unknown>;
  targetQueueUrls: string[];
}

interface Entry {
  Source?: string;
  DetailType?: string;
  Detail?: string;
  EventBusName?: string;
  Resources?: string[];
  Time?: string | number;
  TraceHeader?: string;
}

export async function startEventBridge(opts: { port: number; sqs: SqsSender; region: string; account: string }) {
  const rules: Rule[] = [];
  // When each recent event (by its detail's id) was put on the bus, for the bench.
  const putAt = new Map<string, number>();

  async function put(entry: Entry) {
    if (!entry.Source || !entry.DetailType || !entry.Detail) {
      return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Source, DetailType and Detail are required' };
    }
    let detail: unknown;
    try {
      detail = JSON.parse(entry.Detail);
    } catch {
      return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is not valid JSON' };
    }
    const bus = entry.EventBusName?.split('/').pop() ?? 'default';
    const detailId = (detail as { id?: unknown })?.id;
    if (typeof detailId === 'string') {
      if (putAt.size >= 20_000) putAt.delete(putAt.keys().next().value!);
      putAt.set(detailId, performance.timeOrigin + performance.now());
    }
    const id = randomUUID();
    const event = {
      version: '0',
      id,
      'detail-type': entry.DetailType,
      source: entry.Source,
      account: opts.account,
      time: new Date(entry.Time ? (typeof entry.Time === 'number' ? entry.Time * 1000 : entry.Time) : Date.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      region: opts.region,
      resources: entry.Resources ?? [],
      detail,
    };
    // EventBridge accepts an event and then delivers it to the targets, durably, retrying for up to
    // 24 hours. This emulator keeps nothing of its own, so it answers only once every target queue
    // has the event (the SQS emulator keeps it in the data folder): a crash can then lose nothing
    // accepted. A target that failed fails the entry, and the sender (the outbox relay) sends it
    // again; a target that had it gets it twice, which its consumer takes in its stride.
    const body = JSON.stringify(event);
    const targets = rules.filter((rule) => rule.bus === bus && matches(rule.pattern, event)).flatMap((rule) => rule.targetQueueUrls);
    try {
      const trace = withTraceHeader(entry.TraceHeader);
      await Promise.all(targets.map((QueueUrl) => opts.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: body, ...trace }))));
    } catch (e) {
      return { ErrorCode: 'InternalException', ErrorMessage: `not delivered to its targets: ${(e as Error).message}` };
    }
    return { EventId: id };
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(JSON.stringify(body));
      };
      if (req.headers['x-amz-target'] !== 'AWSEvents.PutEvents') {
        return reply(400, { __type: 'UnknownOperationException', message: `Only PutEvents is emulated, not ${req.headers['x-amz-target']}` });
      }
      try {
        const { Entries = [] } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { Entries?: Entry[] };
        if (Entries.length < 1 || Entries.length > 10) return reply(400, { __type: 'ValidationException', message: 'PutEvents takes 1 to 10 entries' });
        const results = await Promise.all(
          Entries.map((entry) => put(entry).catch((e) => ({ ErrorCode: 'InternalException', ErrorMessage: (e as Error).message }))),
        );
        reply(200, { FailedEntryCount: results.filter((r) => 'ErrorCode' in r).length, Entries: results });
      } catch (e) {
        reply(400, { __type: 'SerializationException', message: (e as Error).message });
      }
    });
  });
  const { port, stop } = await listen(server, opts.port);
  return { endpoint: `http://127.0.0.1:${port}`, addRule: (rule: Rule) => rules.push(rule), putAt: (id: string) => putAt.get(id), stop };
}
export type EventBridgeEmulator = Awaited<ReturnType<typeof startEventBridge>>;
