import { withAmountsWritten } from '../../../console/amounts';
import { openApiDocument } from '../../../lib/api/openapi';
import { NODES, nodeFromArgs } from '../start/defaults';
import { adminCall, fieldOf } from './admin-call';
import { adminClient, viaHttp } from './admin-client';
import { documentRoutes } from './admin-routes';

// `npm run admin -- [options] METHOD PATH [JSON]`: signs and sends one Admin API request, then
// prints the status and the body for a person, each amount written as one ("10,050.00 USD"); with
// --json only the body, as the API gives it, for jq; with --field one field, raw, for a shell
// variable. Exits 1 on a 4xx or 5xx. METHOD PATH must be a route of the Admin API's OpenAPI document
// (./admin-routes.ts): a wrong one is refused before anything is sent, with the routes nearest to it.
const HELP = `usage: npm run -s admin -- [--node b|c] [--tenant ID] [--json | --field NAME] [-H 'Name: value']... METHOD /path [JSON body]

Signs one Admin API request with ADMIN_API_SECRET (or the local default) and sends it, then
prints the status and the answer, each amount written for a person ("10,050.00 USD").

  --node b|c      send to Node B (port 4001) or Node C (6001) instead of Node A (3001)
  --tenant ID     send as this tenant (its tenant-id header), signed with ADMIN_API_SECRET: the
                  tenant's own (the adminApiSecret POST /tenants answered), or the operator's
                  (the local default too), which may act for any active tenant
  --json          print only the response body as the API gives it (amounts as
                  {"value": "1005000", "assetCode": "USD", "assetScale": 2}, no status line),
                  e.g. to pipe into jq
  --field NAME    print only this field of the answer, raw (a dotted path: id, url, items.0.id;
                  items[code=EUR].id: of the first item whose code is EUR),
                  e.g. id=$(npm run -s admin -- --field id POST ...); on a 4xx or 5xx, or when
                  the answer lacks it, the whole answer goes to stderr and the exit status is 1
  -H 'Name: v'    add a header; an Idempotency-Key given this way is signed too
  --routes        list the Admin API's routes (from its OpenAPI document) and exit
  -h, --help      this text

METHOD /path must be one of those routes (its {id} any one path segment); any other is refused
before anything is sent, with the routes nearest to it (exit status 2).

Environment: ADMIN_API_URL (the whole base URL, e.g. a deployed API), else ADMIN_PORT (the local
port), ADMIN_API_SECRET, and TENANT_ID (as --tenant). The exit status is 0 for 2xx/3xx, 1 for
4xx/5xx, 2 for bad usage.

examples:
  npm run -s admin -- POST /assets '{"code":"USD","scale":2}'
  npm run -s admin -- --json GET /assets | jq -r '.items[].code'
  usd=$(npm run -s admin -- --field id POST /assets '{"code":"USD","scale":2}')
  npm run -s admin -- --node b GET /peers
  ADMIN_API_SECRET=<its secret> npm run -s admin -- --tenant <id> GET /assets
  npm run -s admin -- -H 'Idempotency-Key: dep-1' POST /assets/<id>/liquidity '{"amount":"100"}'`;

process.stdout.on('error', () => process.exit(0)); // e.g. piped into head
const args = process.argv.slice(2);
if (args.includes('-h') || args.includes('--help')) {
  console.log(HELP);
  process.exit(0);
}
const doc = openApiDocument();
if (args.includes('--routes')) {
  for (const r of documentRoutes(doc)) console.log(`${r.method.padEnd(6)} ${r.path.padEnd(48)} ${r.summary}`);
  process.exit(0);
}
const call = adminCall(args, process.env, doc, NODES[nodeFromArgs(args)].ports.admin);
if ('usage' in call) {
  console.error(HELP);
  process.exit(2);
}
if ('refused' in call) {
  console.error(`error: ${call.refused}`);
  process.exit(2);
}
const { method, path, body, headers, jsonOnly, field, base, secret } = call;
const res = await adminClient(base, secret, viaHttp)
  .request(method, path, { body, headers })
  .catch((e: Error & { code?: string }) => {
    // Nothing answered (or a header could not be signed): one line, not a stack trace.
    const why = e.code ?? e.message;
    console.error(`error: ${why === 'ECONNREFUSED' ? `nothing answers at ${base}: is npm start running? (--node b|c, ADMIN_API_URL)` : why}`);
    process.exit(1);
  });
process.exitCode = res.status < 400 ? 0 : 1;
// A body that is not JSON comes back as its text, which has no fields.
const answer = typeof res.body === 'string' ? undefined : res.body;
const value = field === undefined ? undefined : fieldOf(answer, field);
if (field !== undefined && res.status < 400 && value !== undefined) {
  console.log(typeof value === 'string' ? value : JSON.stringify(value));
} else {
  // With --field, anything else is for the person, not the variable: stderr, and exit 1.
  const out = field === undefined ? console.log : console.error;
  if (!jsonOnly) out(`${res.status} ${res.statusText}`);
  out(answer === undefined ? res.body : JSON.stringify(jsonOnly ? answer : withAmountsWritten(answer), null, 2));
  if (field !== undefined && res.status < 400) {
    console.error(`The answer has no field ${field}`);
    process.exitCode = 1;
  }
}
