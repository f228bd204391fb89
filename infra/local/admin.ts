import { signatureHeader } from '../../lib/http/signature';
import { LOCAL_ADMIN_API_SECRET, NODES, nodeFromArgs } from './defaults';

// `npm run admin -- [--node b] METHOD PATH [JSON] [-H 'Name: value']...`: signs and sends one
// Admin API request (to Node A, or Node B with --node b), then prints the status and the body.
process.stdout.on('error', () => process.exit(0)); // e.g. piped into head
const args = process.argv.slice(2);
const node = NODES[nodeFromArgs(args)];
const headers: Record<string, string> = {};
const positional: string[] = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '-H') {
    const [name, ...value] = (args[++i] ?? '').split(':');
    headers[name.trim().toLowerCase()] = value.join(':').trim();
  } else positional.push(args[i]);
}
const [method, path, body = ''] = positional;
if (!method || !path?.startsWith('/')) {
  console.error(`usage: npm run admin -- [--node b] METHOD /path [JSON body] [-H 'Idempotency-Key: k']`);
  process.exit(2);
}
const base = process.env.ADMIN_API_URL ?? `http://localhost:${process.env.ADMIN_PORT ?? node.ports.admin}`;
const secret = process.env.ADMIN_API_SECRET || LOCAL_ADMIN_API_SECRET;
const upper = method.toUpperCase();
const res = await fetch(base + path, {
  method: upper,
  headers: {
    ...(body && { 'content-type': 'application/json' }),
    ...headers,
    signature: signatureHeader(secret, { method: upper, pathWithQuery: path, idempotencyKey: headers['idempotency-key'], body }),
  },
  body: body || undefined,
});
const text = await res.text();
console.log(`${res.status} ${res.statusText}`);
try {
  console.log(JSON.stringify(JSON.parse(text), null, 2));
} catch {
  if (text) console.log(text);
}
process.exitCode = res.ok ? 0 : 1;
