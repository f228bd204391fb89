import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE_MS, minuteOf, type Statistic, seriesKey } from '../../infra/local/emulators/metrics';
import type { TestStack } from '../harness/stack';
import { createFlow, ok, paymentIn, startPaymentsStack, type World, waitFor } from '../harness/world';

// The platform metrics the local run adds to the functions' own, as CloudWatch has them: the
// runtime's (AWS/Lambda), the gateways' (AWS/ApiGateway), the queues' (AWS/SQS) and the stream
// relay's iterator age; and the template's alarms on them. (test/tooling/local-restart.test.ts
// shows the series kept in the data folder.)
let s: TestStack;
let w: World;
let stop: () => Promise<void>;
const since = minuteOf(Date.now());

beforeAll(async () => {
  ({ s, w, stop } = await startPaymentsStack());
});
afterAll(() => stop());

// A statistic of one series, from the start of this file until now.
function stat(namespace: string, name: string, dimensions: Record<string, string>, statistic: Statistic = 'Sum'): number {
  const { store } = s.metrics!;
  store.flush();
  return store.statistic(seriesKey(namespace, name, dimensions), statistic, since, Date.now() + MINUTE_MS) ?? 0;
}
const adminApi = { ApiName: 'payment-service-local-admin', Stage: 'local' };
const api = (name: string, statistic?: Statistic) => stat('AWS/ApiGateway', name, adminApi, statistic);
const fn = (name: string, functionName: string, statistic?: Statistic) => stat('AWS/Lambda', name, { FunctionName: functionName }, statistic);
const queueName = (id: string) => s.refs[id].ref.split('/').pop()!;
const alarm = (id: string) => s.metrics!.alarms().find((a) => a.id === id)!;

describe('the APIs', () => {
  it("count each answer, its 4xx and 5xx, and its latency, under the API's name and stage", async () => {
    const [count, clientErrors, latencies] = [api('Count'), api('4XXError'), api('Latency', 'SampleCount')];
    await ok(s.admin('POST', '/assets', { code: 'GBP', scale: 2 }));
    expect((await s.send('GET', '/no-such-route')).status).toBe(404); // the gateway's own answer
    expect((await s.send('GET', '/assets')).status).toBe(401); // unsigned
    expect(api('Count')).toBe(count + 3);
    expect(api('4XXError')).toBe(clientErrors + 2);
    expect(api('5XXError')).toBe(0);
    expect(api('Latency', 'SampleCount')).toBe(latencies + 3);
    expect(api('Latency', 'Maximum')).toBeGreaterThan(0);
    // The resource server is an API of its own.
    expect((await fetch(w.alice)).status).toBe(200);
    expect(stat('AWS/ApiGateway', 'Count', { ApiName: 'payment-service-local-resource-server', Stage: 'local' })).toBe(1);
  });
});

describe('the functions', () => {
  it('count invocations, errors and duration; a failed invocation raises its errors alarm', async () => {
    const invocations = fn('Invocations', 'assetsCreate');
    await ok(s.admin('POST', '/assets', { code: 'JPY', scale: 0 }));
    expect(fn('Invocations', 'assetsCreate')).toBe(invocations + 1);
    expect(fn('Errors', 'assetsCreate')).toBe(0);
    expect(fn('Duration', 'assetsCreate', 'Maximum')).toBeGreaterThan(0);

    expect(alarm('PaymentsWorkerLambdaFunctionErrorsAlarm')).toMatchObject({ state: 'OK' });
    await expect(s.invoke('paymentsWorker', {})).rejects.toThrow('Unexpected batch type');
    expect(fn('Errors', 'paymentsWorker')).toBe(1);
    expect(alarm('PaymentsWorkerLambdaFunctionErrorsAlarm')).toMatchObject({ state: 'ALARM', value: 1, metric: 'AWS/Lambda Errors paymentsWorker' });
    expect(alarm('AssetsCreateLambdaFunctionErrorsAlarm').state).toBe('OK');
  });
});

describe('the queues', () => {
  it("are sampled for their depth and their oldest message's age; a parked event raises the parking queue's alarm", async () => {
    const parking = { QueueName: queueName('WebhookParkingQueue') };
    await s.metrics!.sample();
    expect(stat('AWS/SQS', 'ApproximateNumberOfMessagesVisible', parking, 'Maximum')).toBe(0);
    expect(alarm('WebhookParkingQueueDepthAlarm').state).toBe('OK');
    await s.sqs.send(new SendMessageCommand({ QueueUrl: s.refs.WebhookParkingQueue.ref, MessageBody: '{}' }));
    // Sampled until the message has been there a second (the age is in whole seconds).
    await waitFor('a sample of the message a second old', async () => {
      await s.metrics!.sample();
      return stat('AWS/SQS', 'ApproximateAgeOfOldestMessage', parking, 'Maximum') >= 1 || undefined;
    });
    expect(stat('AWS/SQS', 'ApproximateNumberOfMessagesVisible', parking, 'Maximum')).toBe(1);
    expect(alarm('WebhookParkingQueueDepthAlarm')).toMatchObject({ state: 'ALARM', value: 1 });
    // The work queues, which their pollers keep empty.
    expect(stat('AWS/SQS', 'ApproximateNumberOfMessagesVisible', { QueueName: queueName('PaymentsQueue') }, 'Maximum')).toBe(0);
  });
});

describe('the outbox relay', () => {
  it('reports how long its oldest unread write waited: milliseconds when it keeps up, the outage when it was stopped', async () => {
    const relayed = () => fn('Invocations', 'outboxRelay');
    const { payment } = await createFlow(s, w.alice, w.bob, { value: '100', assetCode: 'USD' });
    await waitFor('the relay', async () => (relayed() > 0 ? true : undefined));
    // Its median: on a loaded machine the first reads, behind the functions' cold imports, can wait
    // seconds (5.9 s once in CI), which the maximum since the stack started keeps.
    expect(fn('IteratorAge', 'outboxRelay', 'SampleCount')).toBeGreaterThan(0);
    expect(fn('IteratorAge', 'outboxRelay', 'p50')).toBeLessThan(1000);

    await s.streams.stop();
    const before = relayed();
    await ok(s.admin('POST', `/payments/${payment.id}/cancel`), 200);
    await new Promise((r) => setTimeout(r, 1500));
    s.streams.start();
    await waitFor('the relay after its outage', async () => (relayed() > before ? true : undefined));
    expect(fn('IteratorAge', 'outboxRelay', 'Maximum')).toBeGreaterThanOrEqual(1500);
    expect(alarm('OutboxRelayLambdaFunctionIteratorAgeAlarm').state).toBe('OK'); // under its 60 s
    await paymentIn(s, payment.id, ['cancelled']);
  });
});
