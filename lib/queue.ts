import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import { sqs } from './aws';
import { logger } from './log';

// Runs a batch of SQS messages through `work`, one at a time per message and all messages at
// once, and reports the ones that failed (partial batch response). A failed message is hidden
// for an exponentially growing delay, so retries back off; after the queue's maxReceiveCount it
// goes to the dead-letter queue. `work` returns normally for messages that must not be retried.
export const retryDelaySecs = (receiveCount: number) => Math.min(900, 2 ** Math.max(0, receiveCount - 1));

export async function processBatch(queueUrl: string, records: SQSRecord[], work: (body: unknown, record: SQSRecord) => Promise<void>): Promise<SQSBatchResponse> {
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
        logger.warn('Message failed; will retry', { messageId: record.messageId, receiveCount, error: (error as Error).message });
        await sqs
          .send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: record.receiptHandle, VisibilityTimeout: retryDelaySecs(receiveCount) }))
          .catch(() => undefined); // the queue's own visibility timeout still applies
        return { itemIdentifier: record.messageId };
      }
    }),
  );
  return { batchItemFailures: results.filter((r) => r !== null) };
}
