import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { listen } from '../start/listen';
import { type Journal, openJournal } from './journal';

// A small SQS emulator: the AWS JSON 1.0 protocol that SDK v3 speaks, for the operations the
// service and its local run use (queues, send, long-polled receive, delete, visibility, attributes,
// message delays, the X-Ray trace header (the AWSTraceHeader system attribute), and redrive to a
// dead-letter queue after maxReceiveCount receives). A waiting
// receive is answered the moment a message becomes visible. (local-aws-sqs, used before, checks
// for messages every 10 ms, which put about 5 ms on every hop of a payment or a webhook.)
// Given a data folder, it keeps its queues and messages there (./journal.ts): every send, receive,
// delete and purge is written before it is answered, so a kill -9 at any instant loses no message
// that a sender was told it has. At a start, the messages come back with their receive counts and
// delays; those that were in flight are visible at once, since whoever received them died with the
// local run (AWS would wait out their visibility timeout; this is at least once either way).
const ACCOUNT = '000000000000';
const REGION = 'us-east-1';
const MAX_BODY_BYTES = 1024 * 1024;

interface Message {
  id: string;
  body: string;
  md5: string;
  sentAt: number;
  visibleAt: number;
  receives: number;
  firstReceivedAt?: number;
  receipt?: string;
  traceHeader?: string; // the AWSTraceHeader it was sent with
}

interface Waiter {
  max: number;
  visibilityTimeout: number;
  answer(messages: Message[]): void;
}

interface Queue {
  name: string;
  url: string;
  arn: string;
  attributes: Record<string, string>;
  messages: Message[];
  waiters: Waiter[];
  timer?: NodeJS.Timeout;
}

class SqsError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

const md5 = (s: string) => createHash('md5').update(s, 'utf8').digest('hex');
// The journal's records: a queue's creation, a message as sent, a receive (its count), and a
// message's or a whole queue's removal.
type Record_ =
  | { queue: string; attributes: Record<string, string> }
  | { q: string; m: Omit<Message, 'receipt'> }
  | { q: string; received: string; receives: number; at: number }
  | { q: string; deleted: string }
  | { q: string; purged: true };
// Compact when the journal holds this many records and four times the live ones.
const COMPACT_AFTER = 10_000;

// The emulators of this process, by endpoint: the local run's own pollers and bus reach theirs
// directly (inProcessSqs), not over HTTP through the SDK to a server on the same thread (issue 46:
// those round trips cost the local stand-ins more CPU than the functions' calls they serve).
type Act = (action: string, input: Record<string, any>, gone?: AbortSignal) => Promise<unknown>;
const inThisProcess = new Map<string, Act>();

// What an SDK command's class names: `ReceiveMessageCommand` is the action `ReceiveMessage`.
type Command = { input: object; constructor: { name: string } };
export interface SqsSender {
  send(command: Command, options?: { abortSignal?: AbortSignal }): Promise<any>;
}

// The SQS at `endpoint` if it runs in this process: its actions called directly, answering what
// the SDK's client would (the JSON protocol's output is the wire's), and failing as its errors do
// (by name). Undefined for any other: the caller then goes over the wire.
export function inProcessSqs(endpoint: string): SqsSender | undefined {
  const act = inThisProcess.get(endpoint);
  return (
    act && {
      send: async (command, options) => {
        try {
          return await act(command.constructor.name.replace(/Command$/, ''), command.input as Record<string, any>, options?.abortSignal);
        } catch (e) {
          if (!(e instanceof SqsError)) throw e;
          throw Object.assign(new Error(e.message), { name: e.type, $fault: 'client' });
        }
      },
    }
  );
}

const DEFAULTS: Record<string, string> = {
  VisibilityTimeout: '30',
  MessageRetentionPeriod: '345600',
  DelaySeconds: '0',
  ReceiveMessageWaitTimeSeconds: '0',
  MaximumMessageSize: '1048576',
};

export async function startSqsServer(port: number, dataDir?: string) {
  const queues = new Map<string, Queue>(); // by name
  let endpoint = '';
  let journal: Journal<Record_> | undefined;

  const kept = ({ receipt: _, ...m }: Message) => m;
  const snapshot = (): Record_[] =>
    [...queues.values()].flatMap((q) => [{ queue: q.name, attributes: q.attributes }, ...q.messages.map((m) => ({ q: q.name, m: kept(m) }))]);
  let compacting = false;
  function write(record: Record_) {
    if (!journal) return;
    journal.append(record);
    if (journal.appended < COMPACT_AFTER || compacting) return;
    // After the change being written is made in memory too, so that the snapshot has it.
    compacting = true;
    setImmediate(() => {
      compacting = false;
      let live = 0;
      for (const q of queues.values()) live += q.messages.length;
      if (journal && journal.appended >= 4 * live) journal.compact(snapshot());
    });
  }
  const newQueue = (name: string, attributes: Record<string, string>): Queue => ({
    name,
    url: `${endpoint}/${ACCOUNT}/${name}`,
    arn: `arn:aws:sqs:${REGION}:${ACCOUNT}:${name}`,
    attributes,
    messages: [],
    waiters: [],
  });

  const byUrl = (url: unknown): Queue => {
    const name = typeof url === 'string' ? url.split('/').pop() : undefined;
    const queue = name ? queues.get(name) : undefined;
    if (!queue) throw new SqsError('QueueDoesNotExist', `The specified queue does not exist: ${String(url)}`);
    return queue;
  };
  const seconds = (q: Queue, name: string, given: unknown, max: number) => {
    const value = given === undefined ? Number(q.attributes[name]) : Number(given);
    if (!Number.isInteger(value) || value < 0 || value > max) throw new SqsError('InvalidParameterValue', `${name} must be an integer from 0 to ${max}`);
    return value;
  };
  const redrive = (q: Queue) =>
    q.attributes.RedrivePolicy ? (JSON.parse(q.attributes.RedrivePolicy) as { deadLetterTargetArn: string; maxReceiveCount: number }) : undefined;

  // The one system attribute a sender may set: AWSTraceHeader, a string.
  function traceHeaderOf(attributes: Record<string, { DataType?: string; StringValue?: string }> | undefined): string | undefined {
    for (const name of Object.keys(attributes ?? {}))
      if (name !== 'AWSTraceHeader') throw new SqsError('InvalidParameterValue', `The message system attribute ${name} is not one a sender sets`);
    const header = attributes?.AWSTraceHeader;
    if (header && (header.DataType !== 'String' || typeof header.StringValue !== 'string'))
      throw new SqsError('InvalidParameterValue', 'AWSTraceHeader is a String attribute with a StringValue');
    return header?.StringValue;
  }

  function enqueue(q: Queue, body: unknown, delaySeconds: unknown, systemAttributes?: Record<string, { DataType?: string; StringValue?: string }>): Message {
    if (typeof body !== 'string' || body.length === 0) throw new SqsError('MissingParameter', 'The request must contain the parameter MessageBody.');
    if (Buffer.byteLength(body) > MAX_BODY_BYTES) throw new SqsError('InvalidParameterValue', 'The message body is larger than the queue allows');
    const now = Date.now();
    const m: Message = {
      id: randomUUID(),
      body,
      md5: md5(body),
      sentAt: now,
      visibleAt: now + seconds(q, 'DelaySeconds', delaySeconds, 900) * 1000,
      receives: 0,
    };
    const traceHeader = traceHeaderOf(systemAttributes);
    if (traceHeader) m.traceHeader = traceHeader;
    write({ q: q.name, m });
    q.messages.push(m);
    serve(q);
    return m;
  }

  // Hands visible messages to waiting receives, moving those received too often to the
  // dead-letter queue first, and sets a timer for the next message that will become visible.
  function serve(q: Queue) {
    clearTimeout(q.timer);
    q.timer = undefined;
    const now = Date.now();
    const retention = Number(q.attributes.MessageRetentionPeriod) * 1000;
    q.messages = q.messages.filter((m) => now - m.sentAt < retention);
    const policy = redrive(q);
    while (q.waiters.length) {
      const visible = q.messages.filter((m) => m.visibleAt <= now);
      const deliverable: Message[] = [];
      const waiter = q.waiters[0];
      for (const m of visible) {
        if (deliverable.length === waiter.max) break;
        if (policy && m.receives >= policy.maxReceiveCount) {
          const dlq = [...queues.values()].find((d) => d.arn === policy.deadLetterTargetArn);
          if (dlq) write({ q: dlq.name, m: { ...kept(m), visibleAt: now } });
          write({ q: q.name, deleted: m.id });
          q.messages.splice(q.messages.indexOf(m), 1);
          if (dlq) {
            dlq.messages.push({ ...m, visibleAt: now, receipt: undefined });
            serve(dlq);
          }
          continue;
        }
        m.receives++;
        m.firstReceivedAt ??= now;
        write({ q: q.name, received: m.id, receives: m.receives, at: m.firstReceivedAt });
        m.visibleAt = now + waiter.visibilityTimeout * 1000;
        m.receipt = `${m.id}#${randomUUID()}`;
        deliverable.push(m);
      }
      if (!deliverable.length) break;
      q.waiters.shift();
      waiter.answer(deliverable);
    }
    if (q.waiters.length) {
      const next = Math.min(...q.messages.map((m) => m.visibleAt).filter((t) => t > now));
      if (Number.isFinite(next)) q.timer = setTimeout(() => serve(q), next - now).unref();
    }
  }

  const view = (m: Message) => ({
    MessageId: m.id,
    ReceiptHandle: m.receipt,
    MD5OfBody: m.md5,
    Body: m.body,
    Attributes: {
      ApproximateReceiveCount: String(m.receives),
      SentTimestamp: String(m.sentAt),
      ApproximateFirstReceiveTimestamp: String(m.firstReceivedAt),
      SenderId: ACCOUNT,
      ...(m.traceHeader && { AWSTraceHeader: m.traceHeader }),
    },
  });

  // `gone`: the caller hung up (a poller that stopped) before an answer; its wait ends with nothing
  // taken, so that no message goes in flight to no one.
  function receive(q: Queue, input: Record<string, any>, gone?: AbortSignal): Promise<unknown> {
    const max = input.MaxNumberOfMessages ?? 1;
    if (!Number.isInteger(max) || max < 1 || max > 10) throw new SqsError('InvalidParameterValue', 'MaxNumberOfMessages must be from 1 to 10');
    const wait = seconds(q, 'ReceiveMessageWaitTimeSeconds', input.WaitTimeSeconds, 20);
    const visibilityTimeout = seconds(q, 'VisibilityTimeout', input.VisibilityTimeout, 43200);
    return new Promise((ok) => {
      const waiter: Waiter = {
        max,
        visibilityTimeout,
        answer: (messages) => {
          clearTimeout(timeout);
          // (A poller's signal outlives its receives: each takes its listener back.)
          gone?.removeEventListener('abort', giveUp);
          ok({ Messages: messages.map(view) });
        },
      };
      const giveUp = () => {
        clearTimeout(timeout);
        gone?.removeEventListener('abort', giveUp);
        const at = q.waiters.indexOf(waiter);
        if (at !== -1) q.waiters.splice(at, 1);
        ok({});
      };
      const timeout = setTimeout(giveUp, wait * 1000);
      gone?.addEventListener('abort', giveUp, { once: true });
      q.waiters.push(waiter);
      serve(q);
    });
  }

  const inFlight = (q: Queue, receipt: unknown) => q.messages.find((m) => m.receipt !== undefined && m.receipt === receipt);
  function remove(q: Queue, receipt: unknown) {
    const m = inFlight(q, receipt);
    if (!m) return;
    write({ q: q.name, deleted: m.id });
    q.messages.splice(q.messages.indexOf(m), 1);
  }

  const actions: Record<string, (input: Record<string, any>, gone?: AbortSignal) => unknown> = {
    CreateQueue: ({ QueueName, Attributes = {} }) => {
      if (typeof QueueName !== 'string' || !/^[A-Za-z0-9_-]{1,80}$/.test(QueueName))
        throw new SqsError('InvalidParameterValue', `Invalid queue name ${QueueName}`);
      if (Attributes.FifoQueue === 'true') throw new SqsError('InvalidAttributeName', 'FIFO queues are not emulated');
      if (!queues.has(QueueName)) {
        const q = newQueue(QueueName, { ...DEFAULTS, ...Attributes });
        write({ queue: q.name, attributes: q.attributes });
        queues.set(QueueName, q);
      }
      return { QueueUrl: queues.get(QueueName)!.url };
    },
    GetQueueUrl: ({ QueueName }) => ({ QueueUrl: byUrl(QueueName).url }),
    GetQueueAttributes: ({ QueueUrl, AttributeNames = ['All'] }) => {
      const q = byUrl(QueueUrl);
      const now = Date.now();
      const all: Record<string, string> = {
        ...q.attributes,
        QueueArn: q.arn,
        ApproximateNumberOfMessages: String(q.messages.filter((m) => m.visibleAt <= now).length),
        ApproximateNumberOfMessagesNotVisible: String(q.messages.filter((m) => m.visibleAt > now && m.receipt).length),
        ApproximateNumberOfMessagesDelayed: String(q.messages.filter((m) => m.visibleAt > now && !m.receipt).length),
      };
      const names = AttributeNames as string[];
      // Not an attribute on AWS but CloudWatch's metric, asked for by name: the local run's metrics
      // sample it. The age, in seconds, of the oldest message that is not waiting out its delay.
      if (names.includes('ApproximateAgeOfOldestMessage')) {
        const oldest = q.messages.reduce((t, m) => (m.visibleAt <= now || m.receipt ? Math.min(t, m.sentAt) : t), now);
        all.ApproximateAgeOfOldestMessage = String(Math.floor((now - oldest) / 1000));
      }
      return { Attributes: names.includes('All') ? all : Object.fromEntries(names.filter((n) => n in all).map((n) => [n, all[n]])) };
    },
    SendMessage: ({ QueueUrl, MessageBody, DelaySeconds, MessageSystemAttributes }) => {
      const m = enqueue(byUrl(QueueUrl), MessageBody, DelaySeconds, MessageSystemAttributes);
      return { MessageId: m.id, MD5OfMessageBody: m.md5 };
    },
    SendMessageBatch: ({ QueueUrl, Entries = [] }) => {
      const q = byUrl(QueueUrl);
      if (Entries.length < 1 || Entries.length > 10) throw new SqsError('TooManyEntriesInBatchRequest', 'A batch holds 1 to 10 entries');
      const Successful = [];
      const Failed = [];
      for (const e of Entries) {
        try {
          const m = enqueue(q, e.MessageBody, e.DelaySeconds, e.MessageSystemAttributes);
          Successful.push({ Id: e.Id, MessageId: m.id, MD5OfMessageBody: m.md5 });
        } catch (err) {
          Failed.push({ Id: e.Id, SenderFault: true, Code: (err as SqsError).type, Message: (err as Error).message });
        }
      }
      return { Successful, Failed };
    },
    ReceiveMessage: (input, gone) => receive(byUrl(input.QueueUrl), input, gone),
    DeleteMessage: ({ QueueUrl, ReceiptHandle }) => {
      remove(byUrl(QueueUrl), ReceiptHandle);
      return {};
    },
    DeleteMessageBatch: ({ QueueUrl, Entries = [] }) => {
      const q = byUrl(QueueUrl);
      for (const e of Entries) remove(q, e.ReceiptHandle);
      return { Successful: Entries.map((e: { Id: string }) => ({ Id: e.Id })), Failed: [] };
    },
    ChangeMessageVisibility: ({ QueueUrl, ReceiptHandle, VisibilityTimeout }) => {
      const q = byUrl(QueueUrl);
      const m = inFlight(q, ReceiptHandle);
      if (!m || m.visibleAt <= Date.now()) throw new SqsError('MessageNotInflight', 'The message is not in flight');
      m.visibleAt = Date.now() + seconds(q, 'VisibilityTimeout', VisibilityTimeout, 43200) * 1000;
      serve(q);
      return {};
    },
    PurgeQueue: ({ QueueUrl }) => {
      const q = byUrl(QueueUrl);
      write({ q: q.name, purged: true });
      q.messages = [];
      return {};
    },
  };

  const act: Act = async (action, input, gone) => {
    const handle = actions[action];
    if (!handle) throw new SqsError('InvalidAction', `The action ${action} is not emulated`);
    return handle(input, gone);
  };
  const server: Server = createServer((req, res) => {
    const hungUp = new AbortController();
    res.on('close', () => res.writableFinished || hungUp.abort());
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', ...headers });
        res.end(JSON.stringify(body));
      };
      const action = String(req.headers['x-amz-target'] ?? '').replace(/^AmazonSQS\./, '');
      try {
        reply(200, await act(action, JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'), hungUp.signal));
      } catch (e) {
        const type = e instanceof SqsError ? e.type : 'InternalError';
        reply(
          e instanceof SqsError ? 400 : 500,
          { __type: `com.amazonaws.sqs#${type}`, message: (e as Error).message },
          { 'x-amzn-query-error': `AWS.SimpleQueueService.${type};Sender` },
        );
      }
    });
  });
  const started = await listen(server, port);
  endpoint = `http://127.0.0.1:${started.port}`;
  if (dataDir) {
    // Replays the journal (a message's last record is its latest state), then rewrites it compact.
    const opened = openJournal<Record_>(join(dataDir, 'sqs', 'journal.jsonl'));
    const byId = new Map<string, Map<string, Message>>(); // queue -> message id -> message
    for (const r of opened.records) {
      if ('queue' in r) {
        queues.set(r.queue, newQueue(r.queue, r.attributes));
        byId.set(r.queue, new Map());
      } else if ('m' in r) byId.get(r.q)?.set(r.m.id, { ...r.m });
      else if ('received' in r) {
        // In flight when the run stopped: visible now (its delay is past), its receives counted.
        const m = byId.get(r.q)?.get(r.received);
        if (m) Object.assign(m, { receives: r.receives, firstReceivedAt: r.at });
      } else if ('deleted' in r) byId.get(r.q)?.delete(r.deleted);
      else byId.get(r.q)?.clear();
    }
    for (const [name, messages] of byId) queues.get(name)!.messages = [...messages.values()].sort((a, b) => a.sentAt - b.sentAt);
    journal = opened.journal;
    journal.compact(snapshot());
  }
  inThisProcess.set(endpoint, act);
  return {
    endpoint,
    stop: async () => {
      inThisProcess.delete(endpoint);
      for (const q of queues.values()) {
        clearTimeout(q.timer);
        for (const w of q.waiters.splice(0)) w.answer([]);
      }
      await started.stop();
      journal?.close();
      journal = undefined;
    },
  };
}
