import { getEventListeners } from 'node:events';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../infra/local/emulators/emulators';
import { inProcessSqs, startSqsServer } from '../../infra/local/emulators/sqs';

// The local SQS emulator, driven by the AWS SDK over its wire protocol, as the service drives it.
let server: Awaited<ReturnType<typeof startSqsServer>>;
let sqs: SQSClient;
let n = 0;

beforeAll(async () => {
  server = await startSqsServer(0);
  sqs = new SQSClient({ endpoint: server.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, useQueueUrlAsEndpoint: false });
});
afterAll(async () => {
  sqs.destroy();
  await server.stop();
});

async function queue(attributes: Record<string, string> = {}) {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `q${++n}`, Attributes: attributes }));
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
  return { url: QueueUrl!, arn: Attributes!.QueueArn! };
}
const receive = (QueueUrl: string, WaitTimeSeconds = 0, extra = {}) =>
  sqs
    .send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['All'], ...extra }))
    .then((r) => r.Messages ?? []);
const depth = async (QueueUrl: string) =>
  (
    await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
      }),
    )
  ).Attributes;

describe('the SQS emulator', () => {
  it("answers the local run's stand-ins in this process as over the wire: what was sent, a wait its caller gives up, errors by name", async () => {
    const local = inProcessSqs(server.endpoint)!;
    expect(inProcessSqs('http://127.0.0.1:1')).toBeUndefined(); // another process's: over the wire
    const q = await queue();
    await local.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'over the wire' }));
    await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'in process' }));
    // A poller's signal outlives its receives, and none leaves a listener on it.
    const poller = new AbortController();
    const { Messages = [] } = await local.send(new ReceiveMessageCommand({ QueueUrl: q.url, MaxNumberOfMessages: 10 }), { abortSignal: poller.signal });
    expect(getEventListeners(poller.signal, 'abort')).toHaveLength(0);
    expect(Messages.map((m: { Body: string }) => m.Body).sort()).toEqual(['in process', 'over the wire']);
    await local.send(
      new DeleteMessageBatchCommand({
        QueueUrl: q.url,
        Entries: Messages.map((m: { ReceiptHandle: string }, i: number) => ({ Id: `${i}`, ReceiptHandle: m.ReceiptHandle })),
      }),
    );
    expect(await depth(q.url)).toMatchObject({ ApproximateNumberOfMessages: '0', ApproximateNumberOfMessagesNotVisible: '0' });
    // A stop ends a poller's 20 s wait at once, with nothing taken.
    const stopping = new AbortController();
    const waiting = local.send(new ReceiveMessageCommand({ QueueUrl: q.url, WaitTimeSeconds: 20 }), { abortSignal: stopping.signal });
    stopping.abort();
    expect(await waiting).toEqual({});
    await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'after' }));
    expect((await receive(q.url)).map((m) => m.Body)).toEqual(['after']);
    await expect(local.send(new SendMessageCommand({ QueueUrl: `${q.url}-gone`, MessageBody: 'x' }))).rejects.toMatchObject({ name: 'QueueDoesNotExist' });
  });

  it('sends, receives (with the checksum the SDK verifies) and deletes', async () => {
    const q = await queue();
    const sent = await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: '{"a":1}' }));
    expect(sent.MessageId).toBeTruthy();
    const [m] = await receive(q.url);
    expect(m.Body).toBe('{"a":1}');
    expect(m.Attributes?.ApproximateReceiveCount).toBe('1');
    expect(await depth(q.url)).toMatchObject({ ApproximateNumberOfMessages: '0', ApproximateNumberOfMessagesNotVisible: '1' });
    await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: q.url, Entries: [{ Id: '0', ReceiptHandle: m.ReceiptHandle }] }));
    expect(await depth(q.url)).toMatchObject({ ApproximateNumberOfMessages: '0', ApproximateNumberOfMessagesNotVisible: '0' });
  });

  it('answers a waiting receive as soon as a message is sent', async () => {
    const q = await queue();
    const waiting = receive(q.url, 5);
    await new Promise((r) => setTimeout(r, 50));
    const sentAt = performance.now();
    await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'x' }));
    const messages = await waiting;
    expect(messages.map((m) => m.Body)).toEqual(['x']);
    expect(performance.now() - sentAt).toBeLessThan(1000); // not the 5 s wait
  });

  it('hides a received message for its visibility timeout, and shows it again after', async () => {
    const q = await queue({ VisibilityTimeout: '1' });
    await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'x' }));
    expect(await receive(q.url)).toHaveLength(1);
    expect(await receive(q.url)).toHaveLength(0);
    const [again] = await receive(q.url, 3);
    expect(again.Attributes?.ApproximateReceiveCount).toBe('2');
    await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: q.url, ReceiptHandle: again.ReceiptHandle, VisibilityTimeout: 0 }));
    expect((await receive(q.url))[0].Attributes?.ApproximateReceiveCount).toBe('3');
  });

  it('delays a message sent with DelaySeconds', async () => {
    const q = await queue();
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: q.url,
        Entries: [
          { Id: 'a', MessageBody: 'late', DelaySeconds: 1 },
          { Id: 'b', MessageBody: 'now' },
        ],
      }),
    );
    expect((await receive(q.url)).map((m) => m.Body)).toEqual(['now']);
    expect(await depth(q.url)).toMatchObject({ ApproximateNumberOfMessagesDelayed: '1' });
    expect((await receive(q.url, 3)).map((m) => m.Body)).toEqual(['late']);
  });

  it('moves a message to the dead-letter queue after maxReceiveCount receives', async () => {
    const dlq = await queue();
    const q = await queue({ VisibilityTimeout: '0', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: 2 }) });
    await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'poison' }));
    expect(await receive(q.url)).toHaveLength(1);
    expect(await receive(q.url)).toHaveLength(1);
    expect(await receive(q.url)).toHaveLength(0);
    expect((await receive(dlq.url)).map((m) => m.Body)).toEqual(['poison']);
  });

  it('carries the X-Ray trace header a sender sets (the AWSTraceHeader system attribute) to the receiver', async () => {
    const q = await queue();
    const header = 'Root=1-6a000000-0123456789abcdef01234567;Parent=53995c3f42cd8ad8;Sampled=1';
    const traced = { MessageSystemAttributes: { AWSTraceHeader: { DataType: 'String', StringValue: header } } };
    await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'one', ...traced }));
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: q.url,
        Entries: [
          { Id: '0', MessageBody: 'two', ...traced },
          { Id: '1', MessageBody: 'untraced' },
        ],
      }),
    );
    const messages = await receive(q.url);
    expect(messages.map((m) => [m.Body, m.Attributes?.AWSTraceHeader])).toEqual([
      ['one', header],
      ['two', header],
      ['untraced', undefined],
    ]);
    const wrong = { MessageSystemAttributes: { AWSTraceHeader: { DataType: 'Number', StringValue: '1' } } };
    await expect(sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'x', ...wrong }))).rejects.toThrow(/AWSTraceHeader/);
  });

  it('answers an unknown queue or a bad parameter with the error the SDK names', async () => {
    await expect(sqs.send(new SendMessageCommand({ QueueUrl: `${server.endpoint}/000000000000/nope`, MessageBody: 'x' }))).rejects.toThrow(/does not exist/);
    const q = await queue();
    await expect(receive(q.url, 0, { MaxNumberOfMessages: 11 })).rejects.toThrow(/MaxNumberOfMessages/);
    await expect(sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'x', DelaySeconds: 901 }))).rejects.toThrow(/DelaySeconds/);
  });

  // npm start's queues: a second emulator on the same data folder, started while the first still
  // runs (as after a kill -9 of it: nothing more is written at a stop), has what the first answered.
  it('with a data folder, keeps its queues and messages, as they were, for the next start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sqs-journal-'));
    const first = await startSqsServer(0, dataDir);
    const client = (endpoint: string) => new SQSClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, useQueueUrlAsEndpoint: false });
    const a = client(first.endpoint);
    const { QueueUrl: dlqUrl } = await a.send(new CreateQueueCommand({ QueueName: 'kept-dlq' }));
    const redrive = JSON.stringify({ deadLetterTargetArn: 'arn:aws:sqs:us-east-1:000000000000:kept-dlq', maxReceiveCount: 1 });
    const { QueueUrl } = await a.send(new CreateQueueCommand({ QueueName: 'kept', Attributes: { VisibilityTimeout: '600', RedrivePolicy: redrive } }));
    await a.send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: [
          { Id: '0', MessageBody: 'in flight' },
          { Id: '1', MessageBody: 'deleted' },
          { Id: '2', MessageBody: 'waiting' },
          { Id: '3', MessageBody: 'delayed', DelaySeconds: 600 },
        ],
      }),
    );
    const received = await a.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 2 }));
    const deleted = received.Messages!.find((m) => m.Body === 'deleted')!;
    await a.send(new DeleteMessageBatchCommand({ QueueUrl, Entries: [{ Id: '0', ReceiptHandle: deleted.ReceiptHandle }] }));

    const second = await startSqsServer(0, dataDir);
    const b = client(second.endpoint);
    try {
      const url = (await b.send(new CreateQueueCommand({ QueueName: 'kept' }))).QueueUrl!;
      const { Attributes } = await b.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }));
      expect(Attributes).toMatchObject({ VisibilityTimeout: '600', ApproximateNumberOfMessages: '2', ApproximateNumberOfMessagesDelayed: '1' });
      const { Messages = [] } = await b.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['All'] }));
      // The one in flight is visible at once (its receiver is gone), with its receive counted: this
      // receive is past maxReceiveCount, so it goes to the dead-letter queue; 'waiting' comes.
      expect(Messages.map((m) => [m.Body, m.Attributes?.ApproximateReceiveCount])).toEqual([['waiting', '1']]);
      const dlq = await b.send(new ReceiveMessageCommand({ QueueUrl: dlqUrl!.replace(first.endpoint, second.endpoint), MessageSystemAttributeNames: ['All'] }));
      expect(dlq.Messages?.map((m) => m.Body)).toEqual(['in flight']);
    } finally {
      a.destroy();
      b.destroy();
      await first.stop();
      await second.stop();
    }
  });

  it('compacts its journal, keeping every message that is still there', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sqs-compact-'));
    const first = await startSqsServer(0, dataDir);
    const a = new SQSClient({ endpoint: first.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, useQueueUrlAsEndpoint: false });
    const { QueueUrl } = await a.send(new CreateQueueCommand({ QueueName: 'busy' }));
    await a.send(new SendMessageCommand({ QueueUrl, MessageBody: 'kept', DelaySeconds: 600 }));
    // 3,500 messages sent, received and deleted: 10,500 records, past the compaction threshold.
    for (let i = 0; i < 350; i++) {
      const Entries = Array.from({ length: 10 }, (_, j) => ({ Id: String(j), MessageBody: `m${i}-${j}` }));
      await a.send(new SendMessageBatchCommand({ QueueUrl, Entries }));
      const { Messages = [] } = await a.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
      await a.send(new DeleteMessageBatchCommand({ QueueUrl, Entries: Messages.map((m, j) => ({ Id: String(j), ReceiptHandle: m.ReceiptHandle })) }));
    }
    await new Promise((r) => setImmediate(r));
    expect(statSync(join(dataDir, 'sqs', 'journal.jsonl')).size).toBeLessThan(100_000); // 10,500 records would be over 700 KB
    const second = await startSqsServer(0, dataDir);
    const b = new SQSClient({ endpoint: second.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, useQueueUrlAsEndpoint: false });
    try {
      const { Attributes } = await b.send(new GetQueueAttributesCommand({ QueueUrl: `${second.endpoint}/000000000000/busy`, AttributeNames: ['All'] }));
      expect(Attributes).toMatchObject({ ApproximateNumberOfMessages: '0', ApproximateNumberOfMessagesDelayed: '1' });
    } finally {
      a.destroy();
      b.destroy();
      await first.stop();
      await second.stop();
    }
  });
});
