// First, for its effect: the AWS SDK's Node version warning said once, in one line, not by every thread.
import '../infra/local/start/quiet';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { BatchGetItemCommand, DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../infra/local/emulators/emulators';
import type { FunctionStats } from '../infra/local/emulators/lambda';
import { adminClient } from '../infra/local/tools/admin-client';
import { measureBundles } from './bundles';
import { costPerMillion } from './cost';
import { appCpu, cpuPerOperation, endWatcher, idleCpu, measure, percentile, print, type Result, settle } from './measure';
import { sampleCpu } from './procs';
import { measureRafiki, rafikiMissing } from './rafiki';

// `npm run bench`: the local stack on free ports, measured through its real HTTP front door, with
// the CPU each process spent per operation (./procs.ts) and the AWS calls and storage work each
// operation made (counted by the local runtime), and a modelled AWS bill (./cost.ts). BENCH_N sets the operations
// per row (default 1000); BENCH_ONLY=routes,flow,fund,remote,three,webhook,rates,resource,bundles picks
// sections, and BENCH_CLIENTS=1,8 the numbers of concurrent clients. BENCH_DATA=disk keeps the
// node's data in a temporary folder as `npm start` does (DynamoDB Local on disk, the queues'
// journal) instead of in memory. With the flow or fund sections, Rafiki, when it is built beside
// this checkout (bench/rafiki.ts), is then measured on the same flows and printed beside, with the
// ratio and each row's load.
const N = Number(process.env.BENCH_N ?? 1000);
const only = process.env.BENCH_ONLY?.split(',');
const CLIENTS = (process.env.BENCH_CLIENTS ?? '1,8').split(',').map(Number);
const section = (name: string) => !only || only.includes(name);
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';

// The FSP's rates endpoint, answering instantly, so the numbers are the service's own.
const fsp = createServer((req, res) => {
  const base = new URL(req.url ?? '/', 'http://x').searchParams.get('base');
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ base, rates: { EUR: 0.92, GBP: 0.79, USD: 1.08 } }));
});
await new Promise<void>((ok) => fsp.listen(0, '127.0.0.1', () => ok()));
// The FSP's webhook endpoint: notes when each event arrived (epoch ms, fractional, comparable
// across threads), keyed by its type and resource id, and the event's own id.
const now = () => performance.timeOrigin + performance.now();
const arrivals = new Map<string, { at: number; eventId: string }>();
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    arrivals.set(`${event.type}:${event.data.id}`, { at: now(), eventId: event.id });
    res.writeHead(204);
    res.end();
  });
});
await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', () => ok()));
const webhookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/webhooks`;

const secret = 'bench-secret-0123456789abcdef';
const ratesUrl = `http://127.0.0.1:${(fsp.address() as { port: number }).port}/rates`;

// A node of the service on its own thread (bench/stack-worker.ts), so that the load client does
// not share its event loop; its emulators its own. Node B only runs for the remote and three-node
// sections, Node C for the three-node one.
const onDisk = process.env.BENCH_DATA === 'disk';
const nodes: Array<{ processes: { jvm?: number; standIns: number; functions: number } }> = [];
let idle: Record<string, number> = {}; // each process's CPU ms per second, idle, after the warm-up
const shownIdle = (ms: Record<string, number>) =>
  Object.entries(ms)
    .map(([k, v]) => `${k} ${v.toFixed(1)}`)
    .join(', ');
async function startNode(ilpAddress: string) {
  const dataDir = onDisk ? mkdtempSync(join(tmpdir(), `bench-${ilpAddress}-`)) : undefined;
  // Workers do not inherit tsx's loader on Node 20, so the worker registers it before loading.
  const workerUrl = new URL('./stack-worker.ts', import.meta.url).href;
  const worker = new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(workerUrl)}); })`, {
    eval: true,
    workerData: { dataDir, settings: { ADMIN_API_SECRET: secret, EXCHANGE_RATES_URL: ratesUrl, WEBHOOK_URL: webhookUrl, ILP_ADDRESS: ilpAddress } },
  });
  const info = await new Promise<{
    adminUrl: string;
    openPaymentsUrl: string;
    connectorUrl: string;
    env: Record<string, string>;
    endpoints: { dynamodb: string };
    triggers: Record<string, string>;
    processes: { jvm?: number; standIns: number; functions: number };
  }>((ok, fail) => {
    worker.once('message', ok);
    worker.once('error', fail);
  });
  // Asks the node's thread, and waits for the answer that carries `key`.
  const ask = <T>(message: unknown, key: string) =>
    new Promise<T>((ok) => {
      const listen = (m: Record<string, unknown>) => {
        if (!(key in m)) return;
        worker.off('message', listen);
        ok(m[key] as T);
      };
      worker.on('message', listen);
      worker.postMessage(message);
    });
  const client = adminClient(info.adminUrl, secret);
  const admin = (method: string, path: string, body?: unknown) => client.ok(method, path, { body });
  const stop = async () => {
    worker.postMessage('stop');
    await new Promise((ok) => worker.once('exit', ok));
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  const node = { ...info, ask, admin, stop };
  nodes.push(node);
  return node;
}
type Node = Awaited<ReturnType<typeof startNode>>;

// The CPU our processes have spent so far (./procs.ts): every node's functions' thread (the
// application tier: the functions and their SDK calls), its local stand-ins' thread (API Gateway,
// the SQS and EventBridge emulators, the event source mappings), its DynamoDB Local; the load
// client's thread; and the rest of this process's threads, which all share (V8's GC and compiler,
// libuv's pool).
const ourCpu = () =>
  sampleCpu({
    functions: nodes.map((n) => ({ pid: process.pid, tid: n.processes.functions })),
    'stand-ins': nodes.map((n) => ({ pid: process.pid, tid: n.processes.standIns })),
    'DynamoDB Local': nodes.flatMap((n) => (n.processes.jvm ? [{ tree: n.processes.jvm }] : [])),
    'load client': [{ pid: process.pid, tid: process.pid }],
    'Node, shared': [{ pid: process.pid, except: [process.pid, ...nodes.flatMap((n) => [n.processes.functions, n.processes.standIns])] }],
  });

const stack = await startNode('test.node-a');
const { admin, ask } = stack;
let nodeB: Node | undefined;
let nodeC: Node | undefined;
const dynamo = new DynamoDBClient({ endpoint: stack.endpoints.dynamodb, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
const stats = () => ask<Record<string, FunctionStats>>('stats', 'stats');

// Measures a row, from an idle node until it is idle again (what the row's operations set going,
// their webhooks, counts in it), and adds per operation: the CPU of each of our processes, and the
// AWS calls, storage work and messages of every function of Node A (`onB` names Node B's functions
// that serve it too, `onC` Node C's), with the modelled bill.
async function row(name: string, count: number, clients: number, op: (i: number) => Promise<unknown>, onB: string[] = [], onC: string[] = []): Promise<Result> {
  const statsOn = async (node: Node | undefined, fns: string[]) => (fns.length ? await node!.ask<Record<string, FunctionStats>>('stats', 'stats') : {});
  const statsOf = async () => [await stats(), await statsOn(nodeB, onB), await statsOn(nodeC, onC)];
  const invocations = async () => (await statsOf()).flatMap((side) => Object.values(side)).reduce((n, f) => n + f.invocations, 0);
  await settle(invocations);
  const before = await statsOf();
  const cpuBefore = ourCpu();
  const began = performance.now();
  const result = await measure(name, count, clients, async (i) => void (await op(i)));
  await settle(invocations);
  const after = await statsOf();
  const cpuAfter = ourCpu();
  const { cpu, app, appIdle } = cpuPerOperation(cpuBefore, cpuAfter, count, ['functions'], idle, performance.now() - began);
  const perOp = (n: number | undefined, was: number | undefined) => ((n ?? 0) - (was ?? 0)) / count;
  const calls: Record<string, number> = {};
  for (const [side, fns] of [Object.keys(after[0]), onB, onC].entries()) {
    for (const fn of fns) {
      for (const [call, n] of Object.entries(after[side][fn]?.calls ?? {})) calls[call] = (calls[call] ?? 0) + perOp(n, before[side][fn]?.calls[call]);
    }
  }
  const usage: Record<string, number> = {};
  const invoked: Record<string, number> = {};
  for (const [fn, s] of Object.entries(after[0])) {
    invoked[fn] = perOp(s.invocations, before[0][fn]?.invocations);
    for (const [k, n] of Object.entries(s.usage ?? {})) usage[k] = (usage[k] ?? 0) + perOp(n, before[0][fn]?.usage?.[k as keyof typeof s.usage]);
  }
  const byTrigger = (trigger: string) => Object.entries(invoked).reduce((n, [fn, i]) => n + (stack.triggers[fn] === trigger ? i : 0), 0);
  const sum = (prefix: string) => Object.entries(calls).reduce((n, [call, i]) => n + (call.startsWith(prefix) ? i : 0), 0);
  const usd = costPerMillion({
    api: byTrigger('http'),
    invocations: invoked,
    cpuMs: cpu.functions,
    awsCalls: sum(''),
    wcu: usage.wcu,
    rcu: usage.rcu,
    sqsCalls: sum('SQS.'),
    sqsBatches: byTrigger('sqs'),
    events: usage.events,
  });
  return { ...result, calls, cpu, app, appIdle, usage: { ...usage, invocations: Object.values(invoked).reduce((a, b) => a + b, 0) }, usd };
}

let unique = 0; // makes every POST body distinct, so no two requests share a signature
const newIntent = (to: string, value: string, assetCode: string) =>
  admin('POST', '/payment-intents', { walletAddress: to, incomingAmount: { value, assetCode, assetScale: 2 }, metadata: { n: unique++ } });
const flow = async (from: string, to: string, value: string, assetCode: string) => {
  const intent = await newIntent(to, value, assetCode);
  const quote = await admin('POST', '/quotes', { walletAddress: from, receiver: intent.id });
  return admin('POST', '/payments', { walletAddress: from, quoteId: quote.id });
};

// A payment's end, as one reader for every client sees it (./measure.ts endWatcher), all awaited
// payments in one BatchGetItem; Rafiki's are watched alike (./rafiki.ts).
const paymentEnd = endWatcher(async (ids) => {
  const Keys = ids.slice(0, 100).map((id) => ({ pk: { S: `PAYMENT#${id}` }, sk: { S: 'PAYMENT' } }));
  const { Responses } = await dynamo.send(new BatchGetItemCommand({ RequestItems: { [stack.env.MAIN_TABLE]: { Keys, ConsistentRead: true } } }));
  return (Responses?.[stack.env.MAIN_TABLE] ?? [])
    .filter((item) => item.state.S === 'completed' || item.state.S === 'failed')
    .map((item) => [item.pk.S!.slice('PAYMENT#'.length), item] as [string, typeof item]);
});
async function completed(id: string): Promise<void> {
  const end = await paymentEnd(id);
  if (end.state.S === 'failed') throw new Error(`payment ${id} failed: ${end.failureReason?.S}`);
}
const fundAndComplete = async (id: string) => {
  await admin('POST', `/payments/${id}/fund`);
  await completed(id);
};

const results: Result[] = [];
const lines: string[] = [];
try {
  await admin('POST', '/assets', { code: 'USD', scale: 2 });
  const eur = await admin('POST', '/assets', { code: 'EUR', scale: 2 });
  await admin('POST', `/assets/${eur.id}/liquidity`, { amount: '100000000000' });
  const wallet = async (name: string, assetCode: string) =>
    (await admin('POST', '/wallet-addresses', { address: `${stack.openPaymentsUrl}/${name}`, assetCode, publicName: name })).address as string;
  const [alice, bob, carlos] = [await wallet('alice', 'USD'), await wallet('bob', 'USD'), await wallet('carlos', 'EUR')];
  await admin('POST', '/rates', { sourceAssetCode: 'GBP', destinationAssetCode: 'EUR', rate: 1.16 });
  await admin('GET', '/rates?sourceAssetCode=USD&destinationAssetCode=EUR'); // pulled once, then cached

  // Warm every path (the JITs of Node and of DynamoDB Local's JVM) before anything is measured. The
  // JVM's full JIT compiles the hot paths again for a minute or more before it spends less: the
  // warm-up goes on in rounds of 100 flows (each funded until completed, half of them across
  // currencies) until a round's DynamoDB Local CPU per flow is within 10% of the round before's
  // (at least three rounds; at most BENCH_WARM_MAX flows, default 2000).
  const warm = (count: number, op: () => Promise<unknown>) => measure('(warm-up)', count, 4, async () => void (await op()));
  await warm(50, () => admin('GET', '/rates?sourceAssetCode=USD&destinationAssetCode=EUR'));
  const jvmPerFlow: number[] = [];
  const warmMax = Number(process.env.BENCH_WARM_MAX ?? 2000);
  for (let round = 0; round * 100 < warmMax; round++) {
    const jvm = () => ourCpu()['DynamoDB Local'];
    const before = jvm();
    await warm(100, async () => {
      const [to, value, code] = unique % 2 ? [carlos, '92', 'EUR'] : [bob, '100', 'USD'];
      const payment = await flow(alice, to, value, code);
      await fundAndComplete(payment.id);
    });
    jvmPerFlow.push((jvm() - before) / 100);
    const [was, is] = jvmPerFlow.slice(-2);
    if (jvmPerFlow.length >= 3 && Math.abs(is - was) <= 0.1 * was) break;
  }
  await settle(async () => Object.values(await stats()).reduce((n, f) => n + f.invocations, 0));
  idle = await idleCpu(ourCpu);
  lines.push(`idle, CPU ms per second: ${shownIdle(idle)}`);
  lines.push(
    `warm-up: ${jvmPerFlow.length * 100} flows, funded until completed; DynamoDB Local's CPU per flow by round of 100: ${jvmPerFlow.map((ms) => ms.toFixed(1)).join(', ')} ms`,
  );

  for (const clients of CLIENTS) {
    if (section('rates')) {
      results.push(await row('GET /rates, cached pulled rate', N, clients, () => admin('GET', '/rates?sourceAssetCode=USD&destinationAssetCode=EUR')));
      results.push(await row('GET /rates, pushed rate', N, clients, () => admin('GET', '/rates?sourceAssetCode=GBP&destinationAssetCode=EUR')));
      results.push(
        await row('POST /rates (push)', N, clients, (i) =>
          admin('POST', '/rates', { sourceAssetCode: 'GBP', destinationAssetCode: 'EUR', rate: 1 + i / 1e6 + clients }),
        ),
      );
    }
    if (section('resource')) {
      results.push(
        await row('resource server: GET wallet address', N, clients, async () => void (await (await fetch(`${stack.openPaymentsUrl}/alice`)).arrayBuffer())),
      );
    }
  }
  if (section('routes')) {
    for (const clients of CLIENTS) {
      const intents: Array<{ id: string }> = [];
      const quotes: Array<{ id: string }> = [];
      const payments: Array<{ id: string }> = [];
      results.push(await row('POST /payment-intents', N, clients, async (i) => (intents[i] = await newIntent(carlos, '92', 'EUR'))));
      results.push(
        await row(
          'POST /quotes (USD->EUR)',
          N,
          clients,
          async (i) => (quotes[i] = await admin('POST', '/quotes', { walletAddress: alice, receiver: intents[i].id })),
        ),
      );
      results.push(
        await row('POST /payments', N, clients, async (i) => (payments[i] = await admin('POST', '/payments', { walletAddress: alice, quoteId: quotes[i].id }))),
      );
      results.push(await row('GET /payments/{id}', N, clients, (i) => admin('GET', `/payments/${payments[i].id}`)));
      results.push(await row('POST /payments/{id}/fund', N, clients, (i) => admin('POST', `/payments/${payments[i].id}/fund`)));
    }
  }
  if (section('flow')) {
    for (const clients of CLIENTS) {
      results.push(await row('create flow USD->USD (intent+quote+payment)', N, clients, () => flow(alice, bob, '100', 'USD')));
      results.push(await row('create flow USD->EUR (intent+quote+payment)', N, clients, () => flow(alice, carlos, '92', 'EUR')));
    }
  }
  if (section('fund')) {
    for (const clients of CLIENTS) {
      for (const [label, to, value, code] of [
        ['USD->USD', bob, '100', 'USD'],
        ['USD->EUR', carlos, '92', 'EUR'],
      ] as const) {
        const count = Math.min(N, 400);
        const payments: Array<{ id: string }> = [];
        for (let i = 0; i < count; i++) payments.push(await flow(alice, to, value, code));
        results.push(await row(`fund -> completed ${label}`, count, clients, (i) => fundAndComplete(payments[i].id)));
      }
    }
  }
  // A USD peering between two nodes: `from`'s peer `to`, and `to`'s peer `from`, whose liquidity (the
  // credit `to` gives `from`) pays for every packet `from` sends it.
  const link = (staticIlpAddress: string, incoming: string, outgoing: string, endpoint: string) => ({
    staticIlpAddress,
    assetCode: 'USD',
    http: { incoming: { authTokens: [incoming] }, outgoing: { authToken: outgoing, endpoint } },
  });
  const peerUp = async (from: Node, to: Node) => {
    const [f, t] = [from.env.ILP_ADDRESS, to.env.ILP_ADDRESS];
    const [fromTo, toFrom] = [`bench-${f}-to-${t}`, `bench-${t}-to-${f}`].map((token) => token.replaceAll('test.', ''));
    const peerOfFrom = await from.admin('POST', '/peers', link(t, toFrom, fromTo, to.connectorUrl));
    const peerOfTo = await to.admin('POST', '/peers', link(f, fromTo, toFrom, from.connectorUrl));
    await to.admin('POST', `/peers/${peerOfTo.id}/liquidity`, { amount: '100000000000' });
    return peerOfFrom as { id: string };
  };
  // Node B, peered with Node A, for the remote and three-node sections: started once.
  let peerOfA: { id: string } | undefined;
  const withNodeB = async () => {
    if (nodeB) return nodeB;
    nodeB = await startNode('test.node-b');
    await nodeB.admin('POST', '/assets', { code: 'USD', scale: 2 });
    peerOfA = await peerUp(stack, nodeB);
    return nodeB;
  };
  // A payment from Alice to a new intent on `node` for `value` cents of USD.
  const payOn = async (node: Node, to: string, value: string) => {
    const intent = await node.admin('POST', '/payment-intents', {
      walletAddress: to,
      incomingAmount: { value, assetCode: 'USD', assetScale: 2 },
      metadata: { n: unique++ },
    });
    const quote = await admin('POST', '/quotes', { walletAddress: alice, receiver: intent.url });
    return admin('POST', '/payments', { walletAddress: alice, quoteId: quote.id });
  };
  const fulfilledPackets = async (paymentId: string) => {
    const res = await dynamo.send(
      new QueryCommand({
        TableName: stack.env.MAIN_TABLE,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :k)',
        ExpressionAttributeValues: { ':pk': { S: `PAYMENT#${paymentId}` }, ':k': { S: 'PKT#' } },
      }),
    );
    return (res.Items ?? []).filter((i) => i.state.S === 'fulfilled').length;
  };
  // `count` payments made, then funded by `clients` clients until each completes; a line of the packets each took.
  const sendAll = async (label: string, newPayment: () => Promise<{ id: string }>, clients: number, count: number, onB: string[], onC: string[] = []) => {
    const payments: Array<{ id: string }> = [];
    for (let i = 0; i < count; i++) payments.push(await newPayment());
    results.push(await row(`fund -> completed ${label}`, count, clients, (i) => fundAndComplete(payments[i].id), onB, onC));
    const packets = await Promise.all(payments.map((p) => fulfilledPackets(p.id)));
    lines.push(
      `${label}, ${clients} client(s): ${(packets.reduce((x, y) => x + y, 0) / count).toFixed(2)} packets per payment (${Math.min(...packets)} to ${Math.max(...packets)})`,
    );
  };
  if (section('remote')) {
    // Node A pays intents on Node B over Interledger: the quote reads the intent over Open Payments
    // and probes the route; the worker sends STREAM packets through B's connector.
    const b = await withNodeB();
    const dora = (await b.admin('POST', '/wallet-addresses', { address: `${b.openPaymentsUrl}/dora`, assetCode: 'USD' })).address as string;
    const remoteFlow = (value: string) => payOn(b, dora, value);
    await warm(30, async () => {
      const payment = await remoteFlow('100');
      await fundAndComplete(payment.id);
    });
    const count = Math.min(N, 200);
    for (const clients of CLIENTS) {
      results.push(
        await row('remote create flow (intent on B, quote+payment on A)', count, clients, () => remoteFlow('100'), [
          'paymentIntentsCreate',
          'openPaymentsIncomingPayments',
          'authServer',
          'authIntrospect',
          'ilpConnector',
        ]),
      );
      await sendAll('remote 1.00 USD', () => remoteFlow('100'), clients, count, ['ilpConnector']);
    }
    // A peer that takes packets of at most 10.00: a 100.00 payment goes in ten.
    await admin('PATCH', `/peers/${peerOfA!.id}`, { maxPacketAmount: '1000' });
    await sendAll('remote 100.00 USD, packets <= 10.00', () => remoteFlow('10000'), 1, Math.min(N, 50), ['ilpConnector']);
  }
  if (section('three')) {
    // Node A pays intents on Node C through Node B (issue 45): A's peer B carries the route
    // test.node-c, B forwards each packet to its peer C (whose static address is its route).
    const b = await withNodeB();
    nodeC = await startNode('test.node-c');
    const c = nodeC;
    await c.admin('POST', '/assets', { code: 'USD', scale: 2 });
    const erin = (await c.admin('POST', '/wallet-addresses', { address: `${c.openPaymentsUrl}/erin`, assetCode: 'USD' })).address as string;
    // A hub's peers take packets of a bounded size: the rate probe learns it from B's F08 (docs/interledger.md).
    const peerOfB = await peerUp(b, c);
    await b.admin('PATCH', `/peers/${peerOfB.id}`, { maxPacketAmount: '100000' });
    await admin('PATCH', `/peers/${peerOfA!.id}`, { routes: ['test.node-c'] });
    const threeFlow = () => payOn(c, erin, '100');
    await warm(30, async () => {
      const payment = await threeFlow();
      await fundAndComplete(payment.id);
    });
    const count = Math.min(N, 200);
    for (const clients of CLIENTS) {
      results.push(
        await row(
          'three-node create flow (intent on C, quote+payment on A)',
          count,
          clients,
          threeFlow,
          ['ilpConnector'],
          ['paymentIntentsCreate', 'openPaymentsIncomingPayments', 'authServer', 'authIntrospect', 'ilpConnector'],
        ),
      );
      await sendAll('across three nodes A->B->C 1.00 USD', threeFlow, clients, count, ['ilpConnector'], ['ilpConnector']);
    }
  }
  if (section('webhook')) {
    // From the moment POST /payment-intents answers 201 (the event is committed) to the moment the
    // FSP's endpoint has it: the outbox relay, EventBridge, the webhook queue and the sender; and,
    // of that, from the moment the relay put it on the bus.
    for (const clients of CLIENTS) {
      const runs: Array<{ committed: number; arrived: number; eventId: string }> = [];
      const count = Math.min(N, 500);
      const started = performance.now();
      await measure('(webhook run)', count, clients, async () => {
        const intent = await admin('POST', '/payment-intents', { walletAddress: bob, metadata: { n: unique++ } });
        const committed = now();
        const key = `payment_intent.created:${intent.id}`;
        while (!arrivals.has(key)) await new Promise((r) => setTimeout(r, 1));
        runs.push({ committed, arrived: arrivals.get(key)!.at, eventId: arrivals.get(key)!.eventId });
      });
      const perSecond = count / ((performance.now() - started) / 1000);
      const published = await ask<Array<number | undefined>>({ publishedAt: runs.map((r) => r.eventId) }, 'published');
      const row = (name: string, lags: number[]) => {
        lags.sort((a, b) => a - b);
        results.push({ name, count, concurrency: clients, p50: percentile(lags, 50), p95: percentile(lags, 95), p99: percentile(lags, 99), perSecond });
      };
      row(
        'webhook: event committed -> received',
        runs.map((r) => r.arrived - r.committed),
      );
      row(
        'webhook: event on the bus -> received',
        runs.flatMap((r, i) => (published[i] === undefined ? [] : [r.arrived - published[i]!])),
      );
    }
    // Throughput: a burst of events, and how fast they are all delivered.
    const burst = Math.min(N, 500);
    const ids: string[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (ids.length < burst) ids.push((await admin('POST', '/payment-intents', { walletAddress: bob, metadata: { n: unique++ } })).id);
      }),
    );
    const t0 = performance.now();
    const pending = ids.map((id) => `payment_intent.created:${id}`);
    while (pending.some((k) => !arrivals.has(k))) await new Promise((r) => setTimeout(r, 2));
    const last = Math.max(...pending.map((k) => arrivals.get(k)!.at)) - performance.timeOrigin;
    lines.push(`webhook burst: ${ids.length} events created by 8 clients, all delivered ${(last - t0).toFixed(0)} ms after the last was created`);
  }
  if (section('bundles')) lines.push(['Deployment bundles (serverless package):', ...(await measureBundles())].join('\n'));
} finally {
  await Promise.all([stack.stop(), nodeB?.stop(), nodeC?.stop()]);
  fsp.close();
  receiver.close();
  dynamo.destroy();
}
const settings = `DynamoDB Local ${onDisk ? 'on disk (-dbPath, as npm start)' : 'in memory (-inMemory)'}, full JIT (both tiers), serial GC; the queues ${onDisk ? 'journaled on disk' : 'in memory'}; the functions on a thread of their own, the local stand-ins on another`;
console.log(
  `\nLocal stack, Node ${process.version}, ${cpus().length} cores; ${settings}. A flow is three signed HTTP calls; fund -> completed: until a reader of every awaited payment (every 5 ms) sees it completed; load: the 1-minute load average as each row began; CPU ms: the machine's busy CPU time per operation while the row ran (every process on it)`,
);
console.log('AWS calls: per operation, by every function of the node, until it was idle again (fund -> completed: funding, outbox relay, worker, webhooks)\n');
print(results);
for (const l of lines) console.log(`\n${l}`);

// Rafiki beside it, in the same run, once this node has stopped (bench/rafiki.ts).
let rafiki: Result[] = [];
if (section('flow') || section('fund')) {
  const missing = rafikiMissing();
  if (missing) console.log(`\nRafiki is not measured: ${missing}`);
  else {
    const measured = await measureRafiki(N, CLIENTS, onDisk);
    rafiki = measured.rows;
    console.log(`\nRafiki, measured now on this machine (the same flows; ${measured.settings}):\n`);
    print(rafiki);
    console.log(`\nRafiki idle, CPU ms per second: ${shownIdle(measured.idle)}`);
    sideBySide(results, rafiki);
  }
}
summary(results, rafiki);

// The lines the checks read: per create flow (USD->USD, the first number of clients) and per fund ->
// completed, the application tier's CPU (ours; Rafiki's in the same run less what its backend spends
// idle in the row's time, polling its database: a lower bound, the whole is in its table), the
// storage work, the functions' AWS calls and the modelled bill per million.
function summary(ours: Result[], theirs: Result[]) {
  const at = CLIENTS[0];
  const find = (rs: Result[], prefix: string) => rs.find((r) => r.name.startsWith(prefix) && r.concurrency === at);
  const n = (x: number | undefined, digits = 2) => (x === undefined ? '-' : Number(x.toFixed(digits)).toString());
  for (const [label, mine, rafikis] of [
    ['create flow', 'create flow USD->USD', 'Rafiki: create flow'],
    ['fund -> completed', 'fund -> completed USD->USD', 'Rafiki: deposit -> completed'],
  ]) {
    const [o, r] = [find(ours, mine), find(theirs, rafikis)];
    if (!o?.usage) continue;
    const calls = Object.values(o.calls ?? {}).reduce((a, b) => a + b, 0);
    console.log(
      `${label === 'create flow' ? '\n' : ''}per ${label}: app_cpu_ms=${n(appCpu(o))} rafiki_app_cpu_ms=${n(r && appCpu(r)! - (r.appIdle ?? 0))} items=${n(o.usage.items)} wcu=${n(o.usage.wcu)} rcu=${n(o.usage.rcu)} calls=${n(calls)} usd_per_million=${n(o.usd?.total)}`,
    );
  }
}

// This service beside Rafiki, flow by flow, with the ratio (above 1: this service is ahead: more per
// second, or a shorter p50 for one client's fund -> completed), the load as each row began, and each
// side's application tier's CPU per operation with their ratio (below 1: ours spends less).
function sideBySide(ours: Result[], rafiki: Result[]) {
  const find = (rs: Result[], prefix: string, clients: number) => rs.find((r) => r.name.startsWith(prefix) && r.concurrency === clients);
  const shown = (r: Result, unit: string) =>
    `${r.perSecond.toFixed(1)} ${unit}/s, p50 ${r.p50.toFixed(1)} ms, p95 ${r.p95.toFixed(1)} ms (load ${r.load?.toFixed(2)}, app CPU ${appCpu(r)?.toFixed(1)} ms)`;
  const rows: string[][] = [];
  for (const clients of CLIENTS) {
    const pairs: Array<[string, Result | undefined, Result | undefined, string]> = [
      ['create flow', find(ours, 'create flow USD->USD', clients), find(rafiki, 'Rafiki: create flow', clients), 'flows'],
      ['fund -> completed', find(ours, 'fund -> completed USD->USD', clients), find(rafiki, 'Rafiki: deposit -> completed', clients), 'payments'],
    ];
    for (const [label, o, r, unit] of pairs) {
      if (!o || !r) continue;
      const ratio = clients === 1 && unit === 'payments' ? r.p50 / o.p50 : o.perSecond / r.perSecond;
      rows.push([
        `${label}, ${clients} client${clients > 1 ? 's' : ''}`,
        shown(o, unit),
        shown(r, unit),
        ratio.toFixed(2),
        (appCpu(o)! / appCpu(r)!).toFixed(2),
      ]);
    }
  }
  if (!rows.length) return;
  const head = ['', 'this service', 'Rafiki', 'ratio', 'app CPU ours/Rafiki'];
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  console.log('');
  for (const r of [head, ...rows])
    console.log(
      r
        .map((c, i) => c.padEnd(w[i]))
        .join('  ')
        .trimEnd(),
    );
}
