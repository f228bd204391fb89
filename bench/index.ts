import { createServer } from 'node:http';
import { Worker } from 'node:worker_threads';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { signatureHeader } from '../lib/http/signature';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../infra/local/emulators';
import { measure, print, type Result } from './measure';

// `npm run bench`: the local stack on free ports, measured through its real HTTP front door.
// BENCH_N sets the number of requests per row (default 1000).
const N = Number(process.env.BENCH_N ?? 1000);
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';

// The FSP's rates endpoint, answering instantly, so the numbers are the service's own.
const fsp = createServer((req, res) => {
  const base = new URL(req.url ?? '/', 'http://x').searchParams.get('base');
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ base, rates: { EUR: 0.92, GBP: 0.79, USD: 1.08 } }));
});
await new Promise<void>((ok) => fsp.listen(0, '127.0.0.1', () => ok()));
// The FSP's webhook endpoint: notes when each event arrived, keyed by the resource id.
const arrivals = new Map<string, number>();
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    arrivals.set(`${event.type}:${event.data.id}`, performance.now());
    res.writeHead(204);
    res.end();
  });
});
await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', () => ok()));
const webhookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/webhooks`;

const secret = 'bench-secret-0123456789abcdef';
// Workers do not inherit tsx's loader on Node 20, so the worker registers it before loading.
const workerUrl = new URL('./stack-worker.ts', import.meta.url).href;
const worker = new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(workerUrl)}); })`, {
  eval: true,
  workerData: {
    settings: { ADMIN_API_SECRET: secret, EXCHANGE_RATES_URL: `http://127.0.0.1:${(fsp.address() as { port: number }).port}/rates`, WEBHOOK_URL: webhookUrl },
  },
});
const stack = await new Promise<{ adminUrl: string; openPaymentsUrl: string; env: Record<string, string>; endpoints: { dynamodb: string } }>(
  (ok, fail) => {
    worker.once('message', ok);
    worker.once('error', fail);
  },
);
const dynamo = new DynamoDBClient({ endpoint: stack.endpoints.dynamodb, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });

async function admin(method: string, path: string, body?: unknown) {
  const raw = body === undefined ? '' : JSON.stringify(body);
  const res = await fetch(stack.adminUrl + path, {
    method,
    headers: { ...(raw && { 'content-type': 'application/json' }), signature: signatureHeader(secret, { method, pathWithQuery: path, body: raw }) },
    body: raw || undefined,
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path} -> ${res.status} ${JSON.stringify(json)}`);
  return json;
}

let unique = 0; // makes every POST body distinct, so no two requests share a signature
const flow = async (from: string, to: string, value: string, assetCode: string) => {
  const intent = await admin('POST', '/payment-intents', { walletAddress: to, incomingAmount: { value, assetCode, assetScale: 2 }, metadata: { n: unique++ } });
  const quote = await admin('POST', '/quotes', { walletAddress: from, receiver: intent.id });
  return admin('POST', '/payments', { walletAddress: from, quoteId: quote.id });
};

// Completion is observed on the payment's item itself, read every millisecond.
async function completed(id: string) {
  const Key = { pk: { S: `PAYMENT#${id}` }, sk: { S: 'PAYMENT' } };
  for (;;) {
    const { Item } = await dynamo.send(new GetItemCommand({ TableName: stack.env.MAIN_TABLE, Key, ConsistentRead: true }));
    if (Item?.state.S === 'completed') return;
    if (Item?.state.S === 'failed') throw new Error(`payment ${id} failed: ${Item.failureReason?.S}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

const results: Result[] = [];
try {
  await admin('POST', '/assets', { code: 'USD', scale: 2 });
  const eur = await admin('POST', '/assets', { code: 'EUR', scale: 2 });
  await admin('POST', `/assets/${eur.id}/liquidity`, { amount: '100000000000' });
  const wallet = async (name: string, assetCode: string) =>
    (await admin('POST', '/wallet-addresses', { address: `${stack.openPaymentsUrl}/${name}`, assetCode, publicName: name })).address as string;
  const [alice, bob, carlos] = [await wallet('alice', 'USD'), await wallet('bob', 'USD'), await wallet('carlos', 'EUR')];
  await admin('POST', '/rates', { sourceAssetCode: 'GBP', destinationAssetCode: 'EUR', rate: 1.16 });
  await admin('GET', '/rates?sourceAssetCode=USD&destinationAssetCode=EUR'); // pulled once, then cached

  const warm = (op: () => Promise<unknown>) => Promise.all(Array.from({ length: 50 }, op));
  await warm(() => admin('GET', '/rates?sourceAssetCode=USD&destinationAssetCode=EUR'));
  await warm(() => flow(alice, bob, '100', 'USD'));

  for (const clients of [1, 8]) {
    results.push(await measure('rates: GET /rates, cached pulled rate', N, clients, () => admin('GET', '/rates?sourceAssetCode=USD&destinationAssetCode=EUR')));
    results.push(await measure('rates: GET /rates, pushed rate', N, clients, () => admin('GET', '/rates?sourceAssetCode=GBP&destinationAssetCode=EUR')));
    results.push(
      await measure('rates: POST /rates (push)', N, clients, (i) => admin('POST', '/rates', { sourceAssetCode: 'GBP', destinationAssetCode: 'EUR', rate: 1 + i / 1e6 + clients })),
    );
    results.push(await measure('resource server: GET wallet address', N, clients, async () => void (await (await fetch(`${stack.openPaymentsUrl}/alice`)).arrayBuffer())));
  }
  for (const clients of [1, 8]) {
    results.push(await measure('create flow USD->USD (intent+quote+payment)', N, clients, () => flow(alice, bob, '100', 'USD')));
    results.push(await measure('create flow USD->EUR (intent+quote+payment)', N, clients, () => flow(alice, carlos, '92', 'EUR')));
  }
  for (const clients of [1, 8]) {
    for (const [label, to, value, code] of [
      ['USD->USD', bob, '100', 'USD'],
      ['USD->EUR', carlos, '92', 'EUR'],
    ] as const) {
      const count = Math.min(N, 400);
      const payments: Array<{ id: string }> = [];
      for (let i = 0; i < count; i++) payments.push(await flow(alice, to, value, code));
      results.push(
        await measure(`fund -> completed ${label}`, count, clients, async (i) => {
          await admin('POST', `/payments/${payments[i].id}/fund`);
          await completed(payments[i].id);
        }),
      );
    }
  }
  // Webhooks: from the moment the event is published (the 201 of POST /payment-intents returns
  // after PutEvents) to the moment the receiver has it.
  for (const clients of [1, 8]) {
    const lags: number[] = [];
    const count = Math.min(N, 500);
    const started = performance.now();
    await measure('(webhook run)', count, clients, async () => {
      const intent = await admin('POST', '/payment-intents', { walletAddress: bob, metadata: { n: unique++ } });
      const published = performance.now();
      const key = `payment_intent.created:${intent.id}`;
      while (!arrivals.has(key)) await new Promise((r) => setTimeout(r, 1));
      lags.push(arrivals.get(key)! - published);
    });
    lags.sort((a, b) => a - b);
    const pct = (p: number) => lags[Math.min(lags.length - 1, Math.ceil((p / 100) * lags.length) - 1)];
    results.push({ name: 'webhook: event published -> received', count, concurrency: clients, p50: pct(50), p95: pct(95), p99: pct(99), perSecond: count / ((performance.now() - started) / 1000) });
  }
  // Throughput: a burst of events, and how fast they are all delivered.
  {
    const burst = Math.min(N, 500);
    const ids: string[] = [];
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (ids.length < burst) ids.push((await admin('POST', '/payment-intents', { walletAddress: bob, metadata: { n: unique++ } })).id);
    }));
    const t0 = performance.now();
    const pending = ids.map((id) => `payment_intent.created:${id}`);
    while (pending.some((k) => !arrivals.has(k))) await new Promise((r) => setTimeout(r, 2));
    const last = Math.max(...pending.map((k) => arrivals.get(k)!));
    console.log(`\nwebhook burst: ${ids.length} events created by 8 clients, all delivered ${(last - t0).toFixed(0)} ms after the last was created`);
  }
  const os = await import('node:os');
  console.log(`\nLocal stack, Node ${process.version}, ${os.cpus().length} cores; a flow is three signed HTTP calls; completion read from DynamoDB every 1 ms\n`);
  print(results);
} finally {
  worker.postMessage('stop');
  await new Promise((ok) => worker.once('exit', ok));
  fsp.close();
  receiver.close();
  dynamo.destroy();
}
