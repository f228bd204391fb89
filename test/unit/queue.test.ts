import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { processBatch } from '../../lib/queue';

const record = (messageId: string, receiveCount: number, body = '{"paymentId":"p"}') =>
  ({ messageId, receiptHandle: 'r', body, attributes: { ApproximateReceiveCount: String(receiveCount) } }) as unknown as SQSRecord;

describe('processBatch on the last receive', () => {
  it('gives up (a final state) instead of leaving the message to the dead-letter queue', async () => {
    const giveUp = vi.fn(async () => undefined);
    const res = await processBatch('q', [record('m1', 8)], async () => Promise.reject(new Error('boom')), { maxReceives: 8, giveUp });
    expect(giveUp).toHaveBeenCalledWith({ paymentId: 'p' }, expect.objectContaining({ message: 'boom' }), expect.objectContaining({ messageId: 'm1' }));
    expect(res.batchItemFailures).toEqual([]);
  });

  it('reports the message when giving up fails too, so the queue moves it to its dead-letter queue', async () => {
    const giveUp = vi.fn(async () => Promise.reject(new Error('still down')));
    const res = await processBatch('q', [record('m1', 8)], async () => Promise.reject(new Error('boom')), { maxReceives: 8, giveUp });
    expect(res.batchItemFailures).toEqual([{ itemIdentifier: 'm1' }]);
  });

  it('drops a message that is not JSON and passes the others through', async () => {
    const work = vi.fn(async () => undefined);
    const res = await processBatch('q', [record('bad', 1, 'not json'), record('good', 1)], work, { maxReceives: 8, giveUp: vi.fn() });
    expect(work).toHaveBeenCalledTimes(1);
    expect(res.batchItemFailures).toEqual([]);
  });
});
