import { createServer } from 'node:http';
import { signatureHeader } from '../lib/http/signature';
import { startStack } from '../infra/local/stack';
import { measure, print, type Result } from './measure';

// `npm run bench`: the local stack on free ports, measured through its real HTTP front door.
const N = Number(process.env.BENCH_N ?? 2000);
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';

// The FSP's rates endpoint, answering instantly, so the numbers are the service's own.
const fsp = createServer((req, res) => {
  const base = new URL(req.url ?? '/', 'http://x').searchParams.get('base');
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ base, rates: { EUR: 0.92, GBP: 0.79, USD: 1.08 } }));
});
await new Promise<void>((ok) => fsp.listen(0, '127.0.0.1', () => ok()));
const secret = 'bench-secret-0123456789abcdef';
const stack = await startStack({
  settings: { ADMIN_API_SECRET: secret, EXCHANGE_RATES_URL: `http://127.0.0.1:${(fsp.address() as { port: number }).port}/rates` },
});

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

const results: Result[] = [];
try {
  await admin('POST', '/assets', { code: 'USD', scale: 2 });
  await admin('POST', '/wallet-addresses', { address: `${stack.openPaymentsUrl}/alice`, assetCode: 'USD', publicName: 'Alice' });
  await admin('POST', '/rates', { sourceAssetCode: 'GBP', destinationAssetCode: 'EUR', rate: 1.16 });
  await admin('GET', '/rates?sourceAssetCode=USD&destinationAssetCode=EUR'); // pulls once, then cached

  const warm = (op: () => Promise<unknown>) => Promise.all(Array.from({ length: 100 }, op));
  await warm(() => admin('GET', '/rates?sourceAssetCode=USD&destinationAssetCode=EUR'));

  for (const clients of [1, 8]) {
    results.push(await measure('GET /rates (cached pulled rate)', N, clients, async () => {
      await admin('GET', '/rates?sourceAssetCode=USD&destinationAssetCode=EUR');
    }));
    results.push(await measure('GET /rates (pushed rate)', N, clients, async () => {
      await admin('GET', '/rates?sourceAssetCode=GBP&destinationAssetCode=EUR');
    }));
    results.push(await measure('POST /rates (push)', N, clients, async (i) => {
      await admin('POST', '/rates', { sourceAssetCode: 'GBP', destinationAssetCode: 'EUR', rate: 1 + i / 1e6 });
    }));
    results.push(await measure('POST /assets', Math.min(N, 1000), clients, async (i) => {
      await admin('POST', '/assets', { code: `B${clients}X${i}`, scale: 2 });
    }));
    results.push(await measure('GET wallet address (resource server)', N, clients, async () => {
      const res = await fetch(`${stack.openPaymentsUrl}/alice`);
      await res.arrayBuffer();
    }));
  }
  console.log(`\nLocal stack, ${N} requests per row (Node ${process.version}, ${(await import('node:os')).cpus().length} cores)\n`);
  print(results);
} finally {
  await stack.stop();
  fsp.close();
}
