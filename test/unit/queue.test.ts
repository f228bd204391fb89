import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { processBatch, retryDelaySecs } from '../../lib/platform/queue';

// The SQS client, where a failed message's back-off goes.
const sent = vi.hoisted(() => [] as Array<{ input: Record<string, unknown> }>);
vi.mock('../../lib/platform/sqs', () => ({ sqs: () => ({ send: async (command: { input: Record<string, unknown> }) => void sent.push(command) }) }));

const record = (messageId: string, receiveCount: number, body = '{"paymentId":"p"}') =>
  ({ messageId, receiptHandle: `r-${messageId}`, body, attributes: { ApproximateReceiveCount: String(receiveCount) } }) as unknown as SQSRecord;

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

describe('processBatch before the last receive', () => {
  it('reports only the failed messages, each hidden for its back-off, without giving up', async () => {
    sent.length = 0;
    const giveUp = vi.fn();
    const work = async (_body: unknown, r: SQSRecord) => (r.messageId === 'ok' ? undefined : Promise.reject(new Error('later')));
    const res = await processBatch('q', [record('ok', 1), record('second', 2), record('fifth', 5)], work, { maxReceives: 8, giveUp });
    expect(res.batchItemFailures).toEqual([{ itemIdentifier: 'second' }, { itemIdentifier: 'fifth' }]);
    expect(sent.map((c) => c.input)).toEqual([
      { QueueUrl: 'q', ReceiptHandle: 'r-second', VisibilityTimeout: retryDelaySecs(2) },
      { QueueUrl: 'q', ReceiptHandle: 'r-fifth', VisibilityTimeout: retryDelaySecs(5) },
    ]);
    expect([retryDelaySecs(1), retryDelaySecs(2), retryDelaySecs(5), retryDelaySecs(20)]).toEqual([1, 2, 16, 900]);
    expect(giveUp).not.toHaveBeenCalled();
  });

  it('reports a batch whose every message failed, message by message, rather than throwing', async () => {
    const res = await processBatch('q', [record('a', 1), record('b', 3)], async () => Promise.reject(new Error('down')), { maxReceives: 8, giveUp: vi.fn() });
    expect(res.batchItemFailures).toEqual([{ itemIdentifier: 'a' }, { itemIdentifier: 'b' }]);
  });

  it('works every message of a batch at once', async () => {
    let started = 0;
    let release!: () => void;
    const allStarted = new Promise<void>((r) => (release = r));
    // Each message waits for all three to have started: one at a time, none would finish.
    const work = async () => {
      if (++started === 3) release();
      await allStarted;
    };
    const res = await processBatch('q', [record('a', 1), record('b', 1), record('c', 1)], work, { maxReceives: 8, giveUp: vi.fn() });
    expect(res.batchItemFailures).toEqual([]);
  });

  it("keeps two batches that run at once apart (the local runtime runs a function's batches concurrently)", async () => {
    const slowOk = async () => new Promise<void>((r) => setTimeout(r, 20));
    const failing = async () => Promise.reject(new Error('down'));
    const [first, second] = await Promise.all([
      processBatch('q', [record('a1', 1), record('a2', 1)], slowOk, { maxReceives: 8, giveUp: vi.fn() }),
      processBatch('q', [record('b1', 1)], failing, { maxReceives: 8, giveUp: vi.fn() }),
    ]);
    expect(first.batchItemFailures).toEqual([]);
    expect(second.batchItemFailures).toEqual([{ itemIdentifier: 'b1' }]);
  });
});
