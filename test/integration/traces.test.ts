import { createSocket } from 'node:dgram';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spansOf, spansUnder, type Trace, type TraceSpan } from '../../infra/local/emulators/traces';
import { startConsole } from '../../infra/local/start/console';
import { db } from '../../lib/platform/db';
import { relayOutbox } from '../../lib/platform/events/relay';
import { queueConsumer } from '../../lib/platform/queue';
import type { TraceDocument } from '../../lib/platform/tracing';
import { type TestStack, tenantAdmin } from '../harness/stack';
import { createFlow, ok, paymentIn, startPaymentsStack, type World, waitFor } from '../harness/world';
import type { WebhookReceiver } from '../servers/webhook-receiver';

// Traces, locally (lib/platform/tracing.ts, infra/local/emulators/traces.ts): a payment followed as one trace from
// the Admin request through the outbox, the relay, the queue and the worker to its webhook, with
// every AWS call and its duration, found by the payment's id as X-Ray finds it by annotation.
let s: TestStack;
let w: World;
let events: WebhookReceiver;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ s, w, events, stop } = await startPaymentsStack());
});
afterAll(() => stop());

describe('a payment as one trace', () => {
  it('follows the funding request through its function, the outbox, the relay and the queue to the worker and the webhook, every AWS call timed', async () => {
    const { payment } = await createFlow(s, w.alice, w.bob, { value: '1000', assetCode: 'USD' });
    await ok(s.admin('POST', `/payments/${payment.id}/fund`), 200);
    await paymentIn(s, payment.id, ['completed']);
    const completed = await events.waitForEvent('payment.completed', (d) => d.id === payment.id);

    // Its creation's trace, and its funding's, complete once its three webhooks are recorded.
    const isFunding = (t: Trace) => t.documents.some((d) => d.http?.request?.url.endsWith(`/payments/${payment.id}/fund`));
    const funding = await waitFor('the funding trace, to its last webhook', async () => {
      const traces = s.traces!.annotated('paymentId', payment.id);
      const t = traces.find(isFunding);
      return traces.length === 2 && t && spansOf(t.documents).filter((d) => d.name === 'webhooksDeliver').length === 3 ? t : undefined;
    });
    const spans = spansOf(funding.documents);
    // One tree: one root (the request), and every other span under one of the trace's own.
    expect(spans.filter((d) => d.depth === 0).map((d) => [d.origin, d.http?.request?.method, d.http?.response?.status])).toEqual([
      ['AWS::ApiGateway::Stage', 'POST', 200],
    ]);
    for (const d of spans) {
      expect(d.end_time, d.name).toBeGreaterThanOrEqual(d.start_time);
      expect(d.end_time! - d.start_time, d.name).toBeLessThan(10);
    }

    const fn = (name: string) => spans.flatMap((d, i) => (d.origin === 'AWS::Lambda::Function' && d.name === name ? [i] : []));
    const callsOf = (i: number) => spans.filter((d) => d.parent === spans[i].id && d.namespace === 'aws');
    const names = (calls: TraceSpan[]) => calls.map((d) => `${d.name}.${d.aws!.operation}`);
    // The Admin function, under the request: its read (the payment and its signature's guard place, in
    // one batch) and its one transaction (the outbox item with it).
    const [fund] = fn('paymentsFund');
    expect(spans[fund]).toMatchObject({ depth: 1, parent: spans[0].id });
    expect(names(callsOf(fund)).slice(0, 2)).toEqual(['DynamoDB.BatchGetItem', 'DynamoDB.TransactWriteItems']);
    // The relay sent the funding's outbox item in this trace: the worker's message, and payment.funded.
    const [relay] = fn('outboxRelay');
    expect(spans[relay].parent).toBe(spans[fund].id);
    expect(names(callsOf(relay)).sort()).toEqual(['EventBridge.PutEvents', 'SQS.SendMessageBatch']);
    // The worker, from the queue, under the relay's send: its reads (the payment, its intent and the
    // intent's wallet address's status, all at once) and its transaction, on the main table.
    const [worker] = fn('paymentsWorker');
    expect(spans.find((d) => d.id === spans[worker].parent)).toMatchObject({ name: 'SQS', aws: { operation: 'SendMessageBatch' } });
    const workerCalls = callsOf(worker);
    // (The three reads go as one BatchGetItem: readTogether, lib/platform/store.ts.)
    expect(names(workerCalls).sort()).toEqual(['DynamoDB.BatchGetItem', 'DynamoDB.TransactWriteItems']);
    // The webhooks (the payment funded and completed, the intent completed), each POSTed with the
    // trace's header.
    const posts = fn('webhooksDeliver').flatMap((i) => spansUnder(spans, i).filter((d) => d.namespace === 'remote'));
    expect(posts.map((p) => [p.http!.request!.method, p.http!.request!.url, p.http!.response!.status])).toEqual(Array(3).fill(['POST', events.url, 204]));
    const sent = events.deliveries.find((d) => d.event.id === completed.id)!;
    expect(sent.headers['x-amzn-trace-id']).toMatch(new RegExp(`^Root=${funding.id};Parent=[0-9a-f]{16};Sampled=1$`));
  });
});

describe("the console's traces, by tenant", () => {
  it("show a tenant's staff the traces of their tenant alone (the recent ones, a payment's, one by id), and the operator's staff every tenant's", async () => {
    const server = await startConsole({ port: 0, adminUrl: s.adminUrl, operators: s.operators, traces: s.traces });
    const password = 'A-long-Passw0rd!';
    // Two tenants, each with a payment between two of its own wallet addresses, and a viewer of its own.
    const tenants = [];
    for (const name of ['t1', 't2']) {
      const prefix = `${s.openPaymentsUrl}/${name}-traces`;
      const t = await ok(s.admin('POST', '/tenants', { name, walletAddressPrefix: prefix }));
      const admin = tenantAdmin(s.adminUrl, t.id, t.adminApiSecret);
      await ok(admin('POST', '/assets', { code: 'USD', scale: 2 }));
      const wallet = async (who: string) => (await ok(admin('POST', '/wallet-addresses', { address: `${prefix}/${who}`, assetCode: 'USD' }))).address;
      const { payment } = await createFlow({ ...s, admin }, await wallet('payer'), await wallet('payee'), { value: '100', assetCode: 'USD' });
      s.operators.add({ name: `viewer@${name}.example`, password, role: 'viewer', tenant: t.id });
      tenants.push({ payment, token: s.operators.signIn(`viewer@${name}.example`, password)!.idToken });
    }
    s.operators.add({ name: 'viewer@operator.example', password, role: 'viewer' });
    const operator = s.operators.signIn('viewer@operator.example', password)!.idToken;
    const get = async (token: string, path: string) => {
      const res = await fetch(`${server.url}/local/traces${path}`, { headers: { authorization: token } });
      return { status: res.status, body: await res.json() };
    };
    const ids = async (token: string, path = '') => (await get(token, path)).body.items.map((t: { id: string }) => t.id) as string[];
    try {
      // Each payment's creation, as the operator's staff find it by the payment's id.
      const [one, two] = await Promise.all(
        tenants.map(({ payment }) =>
          waitFor(`payment ${payment.id}'s trace`, async () => {
            const [id] = await ids(operator, `?paymentId=${payment.id}`);
            return id;
          }),
        ),
      );
      const [t1, t2] = tenants.map((t) => t.token);
      expect(await ids(t1, `?paymentId=${tenants[0].payment.id}`)).toEqual([one]);
      expect(await ids(t1, `?paymentId=${tenants[1].payment.id}`)).toEqual([]);
      expect(await ids(t2, `?paymentId=${tenants[1].payment.id}`)).toEqual([two]);
      expect(await ids(t2, `?paymentId=${tenants[0].payment.id}`)).toEqual([]);
      // The recent ones: its own, none of the other tenant's nor of the operator's.
      const [recent1, recent2, everyone] = await Promise.all([ids(t1), ids(t2), ids(operator)]);
      expect(recent1).toContain(one);
      expect(recent1).not.toContain(two);
      expect(recent2).toContain(two);
      expect(recent2).not.toContain(one);
      expect(recent1.filter((id) => recent2.includes(id))).toEqual([]);
      expect(everyone).toEqual(expect.arrayContaining([one, two]));
      expect(everyone.filter((id) => !recent1.includes(id) && !recent2.includes(id)).length).toBeGreaterThan(0);
      // One by its id: another tenant's is not found, as one never kept.
      expect((await get(t1, `/${one}`)).status).toBe(200);
      expect(await get(t1, `/${two}`)).toEqual({ status: 404, body: expect.objectContaining({ code: 'trace_not_found' }) });
      expect(await get(t2, `/${one}`)).toEqual({ status: 404, body: expect.objectContaining({ code: 'trace_not_found' }) });
      for (const id of [one, two]) expect((await get(operator, `/${id}`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});

describe('the outbox relay', () => {
  it("passes an item's trace on where nothing records (a re-drive run by hand, outside any function)", async () => {
    const header = 'Root=1-6a000002-0123456789abcdef01234567;Parent=5555666677778888;Sampled=1';
    const body = JSON.stringify({ id: 'parked-by-hand' });
    const item = { out: { S: JSON.stringify([{ kind: 'message', id: 'm1', queueUrl: s.env.WEBHOOK_PARKING_QUEUE_URL, body }]) }, trace: { S: header } };
    const { node } = await import('../../lib/platform/config'); // the stack's, its settings read once set
    const answer = await relayOutbox(node, [{ eventID: '1', dynamodb: { SequenceNumber: '1', NewImage: item } } as unknown as DynamoDBRecord]);
    expect(answer).toEqual({ batchItemFailures: [] });
    const { Messages = [] } = await s.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: s.env.WEBHOOK_PARKING_QUEUE_URL, MessageSystemAttributeNames: ['All'], MaxNumberOfMessages: 10 }),
    );
    expect(Messages.filter((m) => m.Body === body).map((m) => m.Attributes?.AWSTraceHeader)).toEqual([header]);
  });
});

describe('on Lambda', () => {
  // What Lambda gives an invocation with active tracing: its function segment's trace header, and
  // the daemon's address, here a UDP socket of the test's.
  async function asOnLambda<T>(daemonPort: number, fn: () => Promise<T>): Promise<T> {
    const env = {
      AWS_LAMBDA_FUNCTION_NAME: 'payment-service-dev-paymentsWorker',
      AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemonPort}`,
      _X_AMZN_TRACE_ID: 'Root=1-6a000000-0123456789abcdef01234567;Parent=53995c3f42cd8ad8;Sampled=1;Lineage=a87bd80c:1',
      _HANDLER: 'functions/payments/worker.handler',
    };
    const before = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
    Object.assign(process.env, env);
    try {
      return await fn();
    } finally {
      for (const [k, v] of Object.entries(before)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  }

  it("sends the invocation's work to the X-Ray daemon under Lambda's segment, and each message's work in the trace the message came with", async () => {
    const daemon = createSocket('udp4');
    const received: string[] = [];
    daemon.on('message', (m) => received.push(m.toString('utf8')));
    await new Promise<void>((ok) => daemon.bind(0, '127.0.0.1', () => ok()));
    const read = (id: string) => db().send(new GetCommand({ TableName: s.env.MAIN_TABLE, Key: { pk: id, sk: id } }));
    const handler = queueConsumer('http://unused', (body) => read((body as { id: string }).id).then(() => undefined), {
      maxReceives: 3,
      giveUp: async () => undefined,
    });
    const record = (id: string, traceHeader?: string) =>
      ({
        messageId: id,
        body: JSON.stringify({ id }),
        attributes: { ApproximateReceiveCount: '1', ...(traceHeader && { AWSTraceHeader: traceHeader }) },
      }) as unknown as SQSRecord;
    const sender = 'Root=1-6a000001-abcdefabcdefabcdefabcdef;Parent=1111222233334444;Sampled=1';
    try {
      const answer = await asOnLambda(daemon.address().port, () => handler({ Records: [record('traced', sender), record('untraced')] }, {}));
      expect(answer).toEqual({ batchItemFailures: [] });
      const docs = await waitFor('two documents at the daemon', async () => (received.length >= 2 ? received : undefined));
      expect(docs.every((d) => d.startsWith('{"format":"json","version":1}\n'))).toBe(true);
      const [handlerDoc, messageDoc] = ['subsegment', undefined].map((type) =>
        docs.map((d) => JSON.parse(d.slice(d.indexOf('\n') + 1)) as TraceDocument).find((d) => d.type === type),
      );
      // The invocation's work: an independent subsegment of Lambda's function segment, with the
      // calls not made for a traced message.
      expect(handlerDoc).toMatchObject({
        name: '## functions/payments/worker.handler',
        trace_id: '1-6a000000-0123456789abcdef01234567',
        parent_id: '53995c3f42cd8ad8',
        annotations: { ColdStart: expect.any(Boolean), Service: 'payment-service' },
        subsegments: [{ name: 'DynamoDB', namespace: 'aws', aws: { operation: 'GetItem', table_name: s.env.MAIN_TABLE } }],
      });
      // The traced message's work: a segment of the function in its sender's trace.
      expect(messageDoc).toMatchObject({
        name: 'payment-service-dev-paymentsWorker',
        origin: 'AWS::Lambda::Function',
        trace_id: '1-6a000001-abcdefabcdefabcdefabcdef',
        parent_id: '1111222233334444',
        subsegments: [{ name: 'DynamoDB', aws: { operation: 'GetItem' } }],
      });
      for (const d of [handlerDoc!, messageDoc!]) expect(d.end_time).toBeGreaterThan(d.start_time);
    } finally {
      daemon.close();
    }
  });
});
