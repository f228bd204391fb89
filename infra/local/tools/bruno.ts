import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument } from '../../../lib/api/openapi';
import { COLLECTION, loadRequests, parseBru, routeKey, routeOf, signedOperations } from './bruno-collection';

// `npm run bruno`: gives every operation of the Admin API's OpenAPI document a request in the API
// collection (bruno/), in its tag's folder: for each one without, it writes one to start from (the
// summary its name, the path's variables from the environments, a JSON body to fill, the success
// status and a field asserted) and names the file, for you to finish (a body, its docs, what the
// collection's run can expect). `--check` writes nothing and exits 1 naming each operation without a
// request. test/unit/collection.test.ts holds the collection to the document.
const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
// A path variable's environment variable: `{id}` of a tag's route is its resource's id ("Wallet
// addresses": walletAddressId), any other its own name.
function variableOf(name: string, tag: string): string {
  if (name !== 'id') return name;
  const words = tag.toLowerCase().split(' ');
  const last = words.pop()!.replace(/sses$/, 'ss').replace(/s$/, '');
  return `${[...words, last].map((w, i) => (i ? w[0].toUpperCase() + w.slice(1) : w)).join('')}Id`;
}

const folders = new Map(
  readdirSync(COLLECTION, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'environments')
    .map((d) => {
      const meta = parseBru(readFileSync(join(COLLECTION, d.name, 'folder.bru'), 'utf8')).get('meta') as Record<string, string>;
      return [meta.name, { dir: d.name, seq: Number(meta.seq) }];
    }),
);
const requests = loadRequests();
const covered = new Set(requests.map((r) => routeKey(r.method, routeOf(r.url))));
const missing = signedOperations(openApiDocument()).filter((o) => !covered.has(routeKey(o.method, o.path)));

if (process.argv.includes('--check')) {
  for (const o of missing) console.error(`${o.method} ${o.path} (${o.tag}): no request in bruno/ (npm run bruno writes one)`);
  process.exit(missing.length ? 1 : 0);
}
const added = new Map<string, number[]>(); // the seqs given in each folder
for (const { method, path, tag, op } of missing) {
  let folder = folders.get(tag);
  if (!folder) {
    folder = { dir: slug(tag), seq: Math.max(0, ...[...folders.values()].map((f) => f.seq)) + 1 };
    mkdirSync(join(COLLECTION, folder.dir), { recursive: true });
    writeFileSync(join(COLLECTION, folder.dir, 'folder.bru'), `meta {\n  name: ${tag}\n  seq: ${folder.seq}\n}\n`);
    folders.set(tag, folder);
  }
  const seq = Math.max(0, ...requests.filter((r) => r.folder.name === tag).map((r) => Number(r.meta.seq)), ...(added.get(tag) ?? [])) + 1;
  added.set(tag, [...(added.get(tag) ?? []), seq]);
  const url = `{{baseUrl}}${path.replace(/\{([^}]+)\}/g, (_, name) => `{{${variableOf(name, tag)}}}`)}`;
  const [status, answer] = Object.entries(op.responses as Record<string, any>).find(([code]) => code.startsWith('2'))!;
  const json = op.requestBody !== undefined;
  const idempotent = (op.parameters ?? []).some((p: { $ref?: string }) => p.$ref?.endsWith('/IdempotencyKey'));
  const blocks = [
    `meta {\n  name: ${op.summary}\n  type: http\n  seq: ${seq}\n}`,
    `${method.toLowerCase()} {\n  url: ${url}\n  body: ${json ? 'json' : 'none'}\n  auth: none\n}`,
    ...(idempotent ? ['headers {\n  Idempotency-Key: {{$randomUUID}}\n}'] : []),
    ...(json ? ['body:json {\n  {}\n}'] : []),
    `assert {\n  res.status: eq ${status}${answer.content ? '\n  res.body: isDefined' : ''}\n}`,
    `docs {\n  ${op.description ?? op.summary}\n}`,
  ];
  const file = join(folder.dir, `${slug(op.summary)}.bru`);
  writeFileSync(join(COLLECTION, file), `${blocks.join('\n\n')}\n`);
  console.log(`bruno/${file}: ${method} ${path}, to finish (its body, docs, and what the collection's run expects)`);
}
