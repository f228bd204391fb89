import { createHash } from 'node:crypto';
import { DeleteMessageBatchCommand, type Message, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse } from 'aws-lambda';
import type { FunctionDef } from '../start/serverless-config';
import type { LambdaRuntime } from './lambda';
import { type Refs, resolveIntrinsics } from './provision';
import type { SqsSender } from './sqs';

// The local SQS-to-Lambda event source mapping: long-polls each queue that a function's `sqs`
// event names, invokes the function, and deletes the messages that succeeded (honouring
// ReportBatchItemFailures). Each poller takes one message at a time, which the SQS emulator
// answers the moment it is sent; several pollers per queue give the concurrency that Lambda's
// scaling would. Each waits 20 s, as Lambda's pollers do: an idle node then costs next to nothing
// (at 1 s, its 16 pollers alone took 3% of a core), and a stop ends the waits at once.
const POLLERS_PER_QUEUE = 8;
const WAIT_SECONDS = 20;

export function startSqsPollers(functions: FunctionDef[], refs: Refs, sqs: SqsSender, runtime: LambdaRuntime): () => Promise<void> {
  let running = true;
  const waits: AbortController[] = []; // one per poller: a signal's listeners stay few
  const loops: Promise<void>[] = [];
  const urlByArn = new Map(Object.values(refs).map((r) => [r.arn, r.ref]));
  for (const fn of functions) {
    for (const e of fn.events) {
      if (!e.sqs) continue;
      const arn = resolveIntrinsics(typeof e.sqs === 'string' ? e.sqs : e.sqs.arn, refs) as string;
      const queueUrl = urlByArn.get(arn);
      if (!queueUrl) throw new Error(`${fn.name}: no local queue for ${arn}`);
      const partial = e.sqs.functionResponseType === 'ReportBatchItemFailures';
      for (let i = 0; i < POLLERS_PER_QUEUE; i++) loops.push(poll(fn, arn, queueUrl, partial));
    }
  }

  async function poll(fn: FunctionDef, arn: string, queueUrl: string, partial: boolean) {
    const stopping = new AbortController();
    waits.push(stopping);
    while (running) {
      let messages: Message[] | undefined;
      try {
        ({ Messages: messages } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: 1,
            WaitTimeSeconds: WAIT_SECONDS,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
          { abortSignal: stopping.signal },
        ));
      } catch (err) {
        if (!running) return;
        console.error(`sqs poller ${fn.name}:`, (err as Error).message);
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      if (!messages?.length || !running) continue;
      const records = messages.map((m) => ({
        messageId: m.MessageId!,
        receiptHandle: m.ReceiptHandle!,
        body: m.Body ?? '',
        attributes: m.Attributes ?? {},
        messageAttributes: m.MessageAttributes ?? {},
        md5OfBody:
          m.MD5OfBody ??
          createHash('md5')
            .update(m.Body ?? '')
            .digest('hex'),
        eventSource: 'aws:sqs',
        eventSourceARN: arn,
        awsRegion: 'us-east-1',
      }));
      let failedIds = new Set<string>();
      try {
        // One message, so the invocation continues its trace (Lambda links a batch's traces instead).
        const result = (await runtime.invoke(fn, { Records: records }, records.length === 1 ? records[0].attributes.AWSTraceHeader : undefined)) as
          | SQSBatchResponse
          | undefined;
        if (partial && result?.batchItemFailures) failedIds = new Set(result.batchItemFailures.map((f) => f.itemIdentifier));
      } catch (err) {
        console.error(`${fn.name} failed; the batch will be retried:`, err);
        continue; // nothing is deleted: every message comes back after its visibility timeout
      }
      const done = records.filter((r) => !failedIds.has(r.messageId));
      if (done.length) {
        await sqs
          .send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: done.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })) }))
          .catch((err) => console.error(`sqs poller ${fn.name}: delete failed:`, err.message));
      }
    }
  }

  return async () => {
    running = false;
    for (const wait of waits) wait.abort();
    await Promise.all(loops);
  };
}
