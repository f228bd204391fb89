import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from './log';
import { sqs } from './sqs';
import { continueTrace, observed } from './tracing';

// Runs a batch of SQS messages through `work`, all messages at once, and reports the ones that
// failed (partial batch response, by Powertools' batch processor). A failed message is hidden for
// an exponentially growing delay, so retries back off. On its last receive (the queue's
// maxReceiveCount, passed as maxReceives) a failure calls `giveUp`, which puts the work in a final
// state, so that nothing waits forever on a message in the dead-letter queue; only if that fails
// too does the message go there. `work` returns normally for messages that must not be retried.
// Each message's work is traced in the trace it was sent in (its AWSTraceHeader).
export const retryDelaySecs = (receiveCount: number) => Math.min(900, 2 ** Math.max(0, receiveCount - 1));

export interface BatchOptions {
  maxReceives: number;
  giveUp(body: unknown, error: Error, record: SQSRecord): Promise<void>;
}

type Work = (body: unknown, record: SQSRecord) => Promise<void>;

// One message: returns if it is done with (worked, dropped or given up), throws to be retried.
async function handleRecord(queueUrl: string, record: SQSRecord, work: Work, options: BatchOptions): Promise<void> {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch {
    logger.error('Dropping a message that is not JSON', { messageId: record.messageId });
    return;
  }
  try {
    await work(body, record);
  } catch (error) {
    const receiveCount = Number(record.attributes?.ApproximateReceiveCount ?? 1);
    if (receiveCount >= options.maxReceives) {
      logger.error('Message failed on its last receive; giving up', { messageId: record.messageId, error: (error as Error).message });
      try {
        await options.giveUp(body, error as Error, record);
        return;
      } catch (giveUpError) {
        logger.error('Giving up failed too; the message goes to the dead-letter queue', { messageId: record.messageId, error: (giveUpError as Error).message });
        throw giveUpError;
      }
    }
    logger.warn('Message failed; will retry', { messageId: record.messageId, receiveCount, error: (error as Error).message });
    await sqs()
      .send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: record.receiptHandle, VisibilityTimeout: retryDelaySecs(receiveCount) }))
      .catch(() => undefined); // the queue's own visibility timeout still applies
    throw error;
  }
}

// A processor per batch, as it keeps the batch's records and outcomes on itself, and the local
// runtime runs a function's batches concurrently in one process. A batch whose every message
// failed is reported like any other, where Powertools would throw by default: Lambda retries the
// same messages either way, but a throw would count as the function failing (its Errors alarm)
// and make Lambda scale the queue's polling down, for failures each message's back-off paces.
export function processBatch(queueUrl: string, records: SQSRecord[], work: Work, options: BatchOptions): Promise<SQSBatchResponse> {
  const handle = (record: SQSRecord) => continueTrace(record.attributes?.AWSTraceHeader, () => handleRecord(queueUrl, record, work, options));
  return processPartialResponse({ Records: records }, handle, new BatchProcessor(EventType.SQS), {
    throwOnFullBatchFailure: false,
  });
}

// The Lambda handler of a queue's consumer: each batch through processBatch, traced, its metrics
// published.
export const queueConsumer = (queueUrl: string, work: Work, options: BatchOptions) =>
  observed((event: SQSEvent) => processBatch(queueUrl, event.Records, work, options));
