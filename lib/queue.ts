import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import { sqs } from './sqs';
import { logger } from './log';

// Runs a batch of SQS messages through `work`, all messages at once, and reports the ones that
// failed (partial batch response). A failed message is hidden for an exponentially growing delay,
// so retries back off. On its last receive (the queue's maxReceiveCount, passed as maxReceives) a
// failure calls `giveUp`, which puts the work in a final state, so that nothing waits forever on
// a message in the dead-letter queue; only if that fails too does the message go there.
// `work` returns normally for messages that must not be retried.
export const retryDelaySecs = (receiveCount: number) => Math.min(900, 2 ** Math.max(0, receiveCount - 1));

export interface BatchOptions {
  maxReceives: number;
  giveUp(body: unknown, error: Error, record: SQSRecord): Promise<void>;
}

export async function processBatch(
  queueUrl: string,
  records: SQSRecord[],
  work: (body: unknown, record: SQSRecord) => Promise<void>,
  options: BatchOptions,
): Promise<SQSBatchResponse> {
  const results = await Promise.all(
    records.map(async (record) => {
      let body: unknown;
      try {
        body = JSON.parse(record.body);
      } catch {
        logger.error('Dropping a message that is not JSON', { messageId: record.messageId });
        return null;
      }
      try {
        await work(body, record);
        return null;
      } catch (error) {
        const receiveCount = Number(record.attributes?.ApproximateReceiveCount ?? 1);
        if (receiveCount >= options.maxReceives) {
          try {
            logger.error('Message failed on its last receive; giving up', { messageId: record.messageId, error: (error as Error).message });
            await options.giveUp(body, error as Error, record);
            return null;
          } catch (giveUpError) {
            logger.error('Giving up failed too; the message goes to the dead-letter queue', { messageId: record.messageId, error: (giveUpError as Error).message });
            return { itemIdentifier: record.messageId };
          }
        }
        logger.warn('Message failed; will retry', { messageId: record.messageId, receiveCount, error: (error as Error).message });
        await sqs()
          .send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: record.receiptHandle, VisibilityTimeout: retryDelaySecs(receiveCount) }))
          .catch(() => undefined); // the queue's own visibility timeout still applies
        return { itemIdentifier: record.messageId };
      }
    }),
  );
  return { batchItemFailures: results.filter((r) => r !== null) };
}
